package dev.inferd.server.clients;

import dev.inferd.engine.Fixtures;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Node clients that {@code scripts/test-node-clients.sh} installs (Node 22, the OpenAI and Anthropic SDKs,
 * Claude Code, ...), and running a test's script with them. A test that needs them is skipped where they cannot
 * be had, and fails under {@code CI=true}.
 *
 * @param node   the Node binary
 * @param folder the folder whose {@code node_modules} holds the clients
 */
public record NodeClients(Path node, Path folder) {

    /** What a script printed and how it ended. */
    public record Run(int exitCode, String stdout, String stderr) {
    }

    public static NodeClients require() throws IOException, InterruptedException {
        List<String> lines = Fixtures.fromSetupScript("test-node-clients.sh", "Node 22 and the protocol clients");
        return new NodeClients(Path.of(lines.get(0)), Path.of(lines.get(1)));
    }

    /** A client's command, e.g. {@code claude}. */
    public Path bin(String command) {
        return folder.resolve("node_modules").resolve(".bin").resolve(command);
    }

    /**
     * Runs a CommonJS script from the test's resources with Node, its {@code require}s resolved in the clients'
     * folder, with {@code env} added to the environment.
     */
    public Run runScript(String resource, Map<String, String> env, Path workDir, Duration timeout)
            throws IOException, InterruptedException {
        Path script = workDir.resolve(Path.of(resource).getFileName());
        try (var in = NodeClients.class.getResourceAsStream(resource)) {
            if (in == null) throw new IllegalArgumentException("no test resource " + resource);
            Files.write(script, in.readAllBytes());
        }
        var builder = new ProcessBuilder(node.toString(), script.toString()).directory(workDir.toFile());
        builder.environment().put("NODE_PATH", folder.resolve("node_modules").toString());
        builder.environment().putAll(env);
        return run(builder, workDir, timeout);
    }

    /** Runs a command to its end (killing it after {@code timeout}), its output captured in files under {@code workDir}. */
    public static Run run(ProcessBuilder builder, Path workDir, Duration timeout) throws IOException, InterruptedException {
        Path out = Files.createTempFile(workDir, "stdout", ".txt");
        Path err = Files.createTempFile(workDir, "stderr", ".txt");
        Process p = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(
                Path.of("/dev/null").toFile())).start();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("timed out after " + timeout + ": " + builder.command() + "\nstdout: "
                    + Files.readString(out, StandardCharsets.UTF_8) + "\nstderr: " + Files.readString(err, StandardCharsets.UTF_8));
        }
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
    }
}
