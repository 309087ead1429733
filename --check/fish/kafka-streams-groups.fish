# fish completion for kafka-streams-groups (kafka-group-tools): the Apache flag form and the subcommands.
# Install: kafka-streams-groups --show-completion fish > ~/.config/fish/completions/kafka-streams-groups.fish
function _kafka_streams_groups_complete
    set -l tokens (commandline -opc)
    set -l current (commandline -ct)
    set -l out (env _KAFKA_TOOLS_COMPLETE=fish $tokens "$current" 2>/dev/null)
    if test "$out[1]" = files
        __fish_complete_path "$current"
    else if set -q out[2]
        printf '%s\n' $out[2..-1]
    end
end
complete -c kafka-streams-groups -f -a '(_kafka_streams_groups_complete)'
