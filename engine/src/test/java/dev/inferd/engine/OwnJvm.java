package dev.inferd.engine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs a test's {@code main} in a JVM of its own, with this JVM's flags and class path: for what only
 * shows in a fresh JIT (code run interpreted, or compiled after some other code has run first).
 */
public final class OwnJvm {
    private OwnJvm() {
    }

    /** The standard output of {@code main} with {@code args}, once it has exited with status zero. */
    public static String run(Class<?> main, List<String> extraFlags, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElseThrow());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> !a.startsWith("-agentlib") && !a.startsWith("-javaagent")).toList());
        command.addAll(extraFlags);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).start();
        p.getOutputStream().close();
        // both streams are drained beside the wait, so that neither a full pipe nor a child that hangs
        // with its streams open can outlast the deadline
        CompletableFuture<String> out = drain(p.getInputStream());
        CompletableFuture<String> err = drain(p.getErrorStream());
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError(main.getSimpleName() + " took over five minutes");
        }
        assertThat(p.exitValue()).as("%s in a JVM of its own: %s%s", main.getSimpleName(), out.join(), err.join()).isZero();
        return out.join();
    }

    /** A stream read to its end on a virtual thread; what was read before an error is kept. */
    private static CompletableFuture<String> drain(InputStream in) {
        var text = new CompletableFuture<String>();
        Thread.ofVirtual().start(() -> {
            var bytes = new ByteArrayOutputStream();
            try {
                in.transferTo(bytes);
            } catch (IOException ignored) {
                // the child's end closed
            }
            text.complete(bytes.toString(StandardCharsets.UTF_8));
        });
        return text;
    }
}
