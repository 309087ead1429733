/*
 * One long-lived JVM that runs the pinned Apache CLI tools in-process, one request at a time, so
 * a test session pays for JVM start-up and class loading once instead of once per call.
 *
 * infra/apache.py (ApacheRunner) compiles this file with javac against the pinned jars of one
 * Kafka release and talks to it over the process's own stdin and stdout:
 *
 *   request:  int n, then n strings (int length + UTF-8 bytes): the main class, then its args
 *   response: int MAGIC, int exit status, then stdout and stderr as (int length + raw bytes)
 *   at start: int MAGIC, int frames (how many stack frames the runner adds below a tool's main)
 *
 * Each request behaves like a fresh `java ... MainClass args` process as far as a caller can see:
 *  - System.out and System.err are installed once, before any Kafka class loads (so log4j's
 *    console appender and any static copy of the streams write through them), and each request
 *    gets new buffers, encoded with the charset the JVM would use for a piped stdout;
 *  - Kafka's Exit procedures are replaced: the first exit or halt records the status and unwinds
 *    the tool's stack with an Error; from then on the request's output is dropped, as nothing is
 *    printed after a real process exits (finally blocks still run and close the tool's clients);
 *  - main returning normally is status 0, an uncaught throwable is printed the way the JVM's
 *    default handler does ("Exception in thread "main" ...") and is status 1;
 *  - stdin is empty;
 *  - the frames below the tool's main (reflection and this class) are taken out of printed stack
 *    traces by the caller, which knows their number from the handshake.
 * Output written between requests (a client's background thread) is discarded.
 */
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

public final class ApacheToolRunner {
    static final int MAGIC = 0x4b544f4f;

    /** Thrown from Kafka's Exit procedures to end the tool's main like a process exit would. */
    static final class ToolExit extends Error {
        ToolExit() {
            super(null, null, false, false);
        }
    }

    /** The stream every System.out / System.err user writes to; it forwards to the current request. */
    static final class Switch extends OutputStream {
        private volatile ByteArrayOutputStream target;

        synchronized void route(ByteArrayOutputStream next) {
            target = next;
        }

        @Override
        public synchronized void write(int b) {
            ByteArrayOutputStream t = target;
            if (t != null && !exited) {
                t.write(b);
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            ByteArrayOutputStream t = target;
            if (t != null && !exited) {
                t.write(b, off, len);
            }
        }
    }

    /** Called through the same path as a tool's main, to count the frames the runner adds below it. */
    public static final class Probe {
        static int depth;

        public static void main(String[] args) {
            depth = new Throwable().getStackTrace().length;
        }
    }

    static volatile boolean exited;
    static volatile int exitStatus;

    private static Charset stdoutCharset() {
        for (String property : new String[] {"stdout.encoding", "sun.stdout.encoding"}) {
            String name = System.getProperty(property);
            if (name != null && Charset.isSupported(name)) {
                return Charset.forName(name);
            }
        }
        return Charset.defaultCharset();
    }

    private static void exitProcedure(int status) {
        synchronized (ApacheToolRunner.class) {
            if (!exited) {
                exitStatus = status;
                exited = true;
            }
        }
        throw new ToolExit();
    }

    /** Hooks the tool registered through Kafka's Exit during the current request. */
    static final java.util.List<Runnable> hooks = new java.util.ArrayList<>();

    private static void installExitProcedures() {
        org.apache.kafka.common.utils.Exit.setExitProcedure((status, message) -> exitProcedure(status));
        org.apache.kafka.common.utils.Exit.setHaltProcedure((status, message) -> exitProcedure(status));
        org.apache.kafka.common.utils.Exit.setShutdownHookAdder((name, runnable) -> {
            synchronized (hooks) {
                hooks.add(runnable);
            }
        });
    }

    /** What a JVM does on its way out: run the hooks the tool added (their output still counts). */
    private static void runHooks() {
        java.util.List<Runnable> pending;
        synchronized (hooks) {
            pending = new java.util.ArrayList<>(hooks);
            hooks.clear();
        }
        boolean wasExited = exited;
        exited = false;
        for (Runnable hook : pending) {
            try {
                hook.run();
            } catch (Throwable ignored) {
                // a failing hook does not change a process's exit status
            }
        }
        exited = wasExited;
    }

    private static String readString(DataInputStream in) throws IOException {
        byte[] bytes = new byte[in.readInt()];
        in.readFully(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    public static void main(String[] ignored) throws Exception {
        DataInputStream requests = new DataInputStream(new BufferedInputStream(System.in));
        DataOutputStream replies =
                new DataOutputStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out)));

        Charset charset = stdoutCharset();
        Switch outSwitch = new Switch();
        Switch errSwitch = new Switch();
        PrintStream out = new PrintStream(outSwitch, true, charset);
        PrintStream err = new PrintStream(errSwitch, true, charset);
        System.setOut(out);
        System.setErr(err);
        System.setIn(new ByteArrayInputStream(new byte[0]));

        // Kafka classes load only now, after the streams are in place.
        installExitProcedures();

        // Handshake: how many stack frames the runner adds below a tool's main (reflection and this
        // class), so that the caller can take them out of printed stack traces.
        run(Probe.class.getName(), new String[0], err);
        replies.writeInt(MAGIC);
        replies.writeInt(Probe.depth - 1);
        replies.flush();

        while (true) {
            int count;
            try {
                count = requests.readInt();
            } catch (EOFException eof) {
                return;
            }
            String mainClass = readString(requests);
            String[] args = new String[count - 1];
            for (int i = 0; i < args.length; i++) {
                args[i] = readString(requests);
            }

            ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            ByteArrayOutputStream stderr = new ByteArrayOutputStream();
            exited = false;
            exitStatus = 0;
            System.setIn(new ByteArrayInputStream(new byte[0]));
            outSwitch.route(stdout);
            errSwitch.route(stderr);
            int status = run(mainClass, args, err);
            runHooks();
            out.flush();
            err.flush();
            outSwitch.route(null);
            errSwitch.route(null);
            if (exited) {
                status = exitStatus;
            }

            replies.writeInt(MAGIC);
            replies.writeInt(status);
            writeBytes(replies, stdout.toByteArray());
            writeBytes(replies, stderr.toByteArray());
            replies.flush();
        }
    }

    private static int run(String mainClass, String[] args, PrintStream err) {
        try {
            Method main = Class.forName(mainClass).getMethod("main", String[].class);
            main.invoke(null, (Object) args);
            return 0;
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof ToolExit || exited) {
                return exitStatus;
            }
            err.print("Exception in thread \"main\" ");
            cause.printStackTrace(err);
            return 1;
        } catch (ReflectiveOperationException e) {
            err.println("Error: Could not find or load main class " + mainClass);
            return 1;
        }
    }
}
