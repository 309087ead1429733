_kafka_streams_groups_completion() {
    local IFS=$'
'
    COMPREPLY=( $( env COMP_WORDS="${COMP_WORDS[*]}" \
                   COMP_CWORD=$COMP_CWORD \
                   _KAFKA_STREAMS_GROUPS_COMPLETE=complete_bash $1 ) )
    return 0
}

complete -o default -F _kafka_streams_groups_completion kafka-streams-groups
