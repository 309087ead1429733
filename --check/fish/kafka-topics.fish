# fish completion for kafka-topics (kafka-group-tools): the Apache flag form and the subcommands.
# Install: kafka-topics --show-completion fish > ~/.config/fish/completions/kafka-topics.fish
function _kafka_topics_complete
    set -l tokens (commandline -opc)
    set -l current (commandline -ct)
    set -l out (env _KAFKA_TOOLS_COMPLETE=fish $tokens "$current" 2>/dev/null)
    if test "$out[1]" = files
        __fish_complete_path "$current"
    else if set -q out[2]
        printf '%s\n' $out[2..-1]
    end
end
complete -c kafka-topics -f -a '(_kafka_topics_complete)'
