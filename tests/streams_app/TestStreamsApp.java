// A small Kafka Streams application that makes a streams group (KIP-1071) for the tests.
//
// Usage: TestStreamsApp <bootstrap> <application.id> <input[,input...]> <output> <state-dir>
//
// Topology: the input topics are re-keyed by value (a repartition topic), counted per key
// (a state store with its changelog topic) and the counts written to <output>. That gives
// two subtopologies, source topics, a repartition topic and a changelog topic: everything
// kafka-streams-groups shows.
//
// It prints "RUNNING" once the instance is running, and closes (leaving the group) when
// stdin closes or on SIGTERM.
import java.time.Duration;
import java.util.Arrays;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Produced;

public final class TestStreamsApp {
    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: TestStreamsApp <bootstrap> <application.id> <inputs> <output> <state-dir>");
            System.exit(2);
        }
        Properties props = new Properties();
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, args[1]);
        props.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.STATE_DIR_CONFIG, args[4]);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        props.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");

        StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>stream(Arrays.asList(args[2].split(",")))
            .selectKey((key, value) -> value)
            .groupByKey()
            .count()
            .toStream()
            .to(args[3], Produced.with(Serdes.String(), Serdes.Long()));

        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        CountDownLatch done = new CountDownLatch(1);
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
                System.out.println("RUNNING");
                System.out.flush();
            }
        });
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            streams.close(Duration.ofSeconds(20));
            done.countDown();
        }));
        streams.start();
        Thread stdinWatcher = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // wait for the test to close stdin
                }
            } catch (java.io.IOException ignored) {
                // closed
            }
            System.exit(0);
        });
        stdinWatcher.setDaemon(true);
        stdinWatcher.start();
        done.await();
    }
}
