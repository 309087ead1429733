# bash completion for kafka-topics (kafka-group-tools): the Apache flag form and the subcommands.
# Install: kafka-topics --show-completion bash > ~/.local/share/bash-completion/completions/kafka-topics
#     (or add to ~/.bashrc: eval "$(kafka-topics --show-completion bash)")
_kafka_topics_complete() {
    local IFS=$'\n'
    local -a reply
    reply=( $(_KAFKA_TOOLS_COMPLETE=bash COMP_LINE="$COMP_LINE" COMP_POINT="$COMP_POINT" \
              COMP_WORDBREAKS="$COMP_WORDBREAKS" "$1" 2>/dev/null) )
    COMPREPLY=( "${reply[@]:1}" )
    if [[ ${reply[0]} == files ]]; then
        compopt -o default 2>/dev/null
        COMPREPLY=()
    fi
    return 0
}
complete -F _kafka_topics_complete kafka-topics
