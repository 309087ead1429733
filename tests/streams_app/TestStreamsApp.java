// A small Kafka Streams application that makes streams groups (KIP-1071) for the tests.
//
// Usage: TestStreamsApp <bootstrap> <application.id[,application.id...]> <input[,input...]> <output> <state-dir>
//
// Topology: the input topics are re-keyed by value (a repartition topic), counted per key
// (a state store with its changelog topic) and the counts written to <output>. That gives
// two subtopologies, source topics, a repartition topic and a changelog topic: everything
// kafka-streams-groups shows.
//
// One instance runs per application id, each with its own clients, in its own group; one JVM
// serves them all, so a test that needs many groups starts the JVM and loads Kafka Streams once.
// It prints "RUNNING <application.id>" when an instance first runs, and closes every instance
// (each leaving its group) when stdin closes or on SIGTERM. A line "close <application.id>[,...]" on
// stdin closes those instances only (each leaving its group) and prints "CLOSED <application.id>" for
// each; the others keep running.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Produced;

public final class TestStreamsApp {
    private static KafkaStreams instance(String bootstrap, String appId, List<String> inputs, String output,
                                         String stateDir) {
        Properties props = new Properties();
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        props.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
        props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
        props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);  // each application id has its own directory in it
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        props.put(StreamsConfig.consumerPrefix("auto.offset.reset"), "earliest");

        StreamsBuilder builder = new StreamsBuilder();
        builder.<String, String>stream(inputs)
            .selectKey((key, value) -> value)
            .groupByKey()
            .count()
            .toStream()
            .to(output, Produced.with(Serdes.String(), Serdes.Long()));

        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        AtomicBoolean announced = new AtomicBoolean();
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING && announced.compareAndSet(false, true)) {
                synchronized (System.out) {
                    System.out.println("RUNNING " + appId);
                    System.out.flush();
                }
            }
        });
        return streams;
    }

    // Close them side by side: each close waits for its instance to leave its group.
    private static void closeAll(List<KafkaStreams> instances) {
        List<Thread> closers = new ArrayList<>();
        for (KafkaStreams streams : instances) {
            Thread closer = new Thread(() -> streams.close(Duration.ofSeconds(20)));
            closer.start();
            closers.add(closer);
        }
        for (Thread closer : closers) {
            try {
                closer.join();
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: TestStreamsApp <bootstrap> <application.id[,...]> <inputs> <output> <state-dir>");
            System.exit(2);
        }
        List<String> inputs = Arrays.asList(args[2].split(","));
        Map<String, KafkaStreams> instances = new LinkedHashMap<>();
        for (String appId : args[1].split(",")) {
            instances.put(appId, instance(args[0], appId, inputs, args[3], args[4]));
        }
        CountDownLatch done = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            closeAll(new ArrayList<>(instances.values()));  // a closed instance's close returns at once
            done.countDown();
        }));
        for (KafkaStreams streams : instances.values()) {
            streams.start();
        }
        Thread stdinWatcher = new Thread(() -> {
            try {
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                String line;
                while ((line = in.readLine()) != null) {
                    if (!line.startsWith("close ")) {
                        continue;
                    }
                    List<String> ids = Arrays.asList(line.substring("close ".length()).trim().split(","));
                    List<KafkaStreams> closing = new ArrayList<>();
                    for (String appId : ids) {
                        closing.add(instances.get(appId));
                    }
                    closeAll(closing);
                    synchronized (System.out) {
                        for (String appId : ids) {
                            System.out.println("CLOSED " + appId);
                        }
                        System.out.flush();
                    }
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
