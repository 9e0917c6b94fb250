package dev.inferd.server.http;

import dev.inferd.engine.Fixtures;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Node clients of scripts/test-node-clients.sh: runs a script from the test resources' {@code node/}
 * folder with them, in a temporary folder whose {@code node_modules} is theirs.
 */
final class NodeClients {

    final Path node;
    final Path clients;

    private NodeClients(Path node, Path clients) {
        this.node = node;
        this.clients = clients;
    }

    /** The clients, or the test skips (fails under CI=true) when the set-up script cannot provide them. */
    static NodeClients get() throws IOException, InterruptedException {
        List<String> lines = Fixtures.fromSetupScript("test-node-clients.sh", "the Node protocol clients");
        return new NodeClients(Path.of(lines.get(0)), Path.of(lines.get(1)));
    }

    /** A client's command, such as {@code codex}. */
    Path bin(String name) {
        return clients.resolve("node_modules/.bin").resolve(name);
    }

    /** The PATH with this Node first, for commands that run {@code node} themselves. */
    String path() {
        return node.getParent() + ":" + System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
    }

    /** Runs {@code node <resource script> args...}; returns its standard output's lines. */
    List<String> run(String script, Duration timeout, String... args) throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("inferd-node");
        try {
            Files.createSymbolicLink(dir.resolve("node_modules"), clients.resolve("node_modules"));
            Path file = dir.resolve(script);
            try (InputStream in = NodeClients.class.getResourceAsStream("/node/" + script)) {
                Files.copy(in, file);
            }
            List<String> command = new ArrayList<>(List.of(node.toString(), file.toString()));
            command.addAll(List.of(args));
            var builder = new ProcessBuilder(command).directory(dir.toFile())
                    .redirectError(ProcessBuilder.Redirect.INHERIT);
            isolate(builder.environment());
            builder.environment().put("PATH", path());
            Process p = builder.start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(script + " did not finish within " + timeout);
            }
            return out.lines().toList();
        } finally {
            deleteTree(dir);
        }
    }

    static void deleteTree(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        }
    }

    /** Keeps the test JVM's environment out of a child's: no proxy, no real key. */
    static void isolate(Map<String, String> env) {
        env.keySet().removeIf(k -> k.startsWith("OPENAI_") || k.startsWith("ANTHROPIC_") || k.toLowerCase().endsWith("_proxy"));
    }
}
