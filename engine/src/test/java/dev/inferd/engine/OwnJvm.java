package dev.inferd.engine;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
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
        // read both streams to the end before waiting, so that a full pipe cannot stall the child
        var err = p.getErrorStream();
        var errText = new StringBuilder();
        Thread errReader = Thread.ofVirtual().start(() -> {
            try {
                errText.append(new String(err.readAllBytes(), StandardCharsets.UTF_8));
            } catch (java.io.IOException ignored) {
                // the child's end closed; what was read is kept
            }
        });
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError(main.getSimpleName() + " took over five minutes");
        }
        errReader.join();
        assertThat(p.exitValue()).as("%s in a JVM of its own: %s%s", main.getSimpleName(), out, errText).isZero();
        return out;
    }
}
