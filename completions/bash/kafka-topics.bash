_kafka_topics_completion() {
    local IFS=$'
'
    COMPREPLY=( $( env COMP_WORDS="${COMP_WORDS[*]}" \
                   COMP_CWORD=$COMP_CWORD \
                   _KAFKA_TOPICS_COMPLETE=complete_bash $1 ) )
    return 0
}

complete -o default -F _kafka_topics_completion kafka-topics
