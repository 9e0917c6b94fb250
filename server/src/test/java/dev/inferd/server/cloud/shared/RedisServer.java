package dev.inferd.server.cloud.shared;

import dev.inferd.engine.Fixtures;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A real {@code redis-server} (Debian's, made available by {@code scripts/test-redis.sh}) on a free port, with
 * nothing saved to disk; stopped on close.
 */
final class RedisServer implements AutoCloseable {

    private final Process process;
    private final int port;
    private final Path dir;

    private RedisServer(Process process, int port, Path dir) {
        this.process = process;
        this.port = port;
        this.dir = dir;
    }

    static RedisServer start() throws Exception {
        List<String> lines = Fixtures.fromSetupScript("test-redis.sh", "redis-server for the Redis rate limit backend");
        String binary = lines.getLast();
        int port;
        try (var socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Path dir = Files.createTempDirectory("inferd-redis");
        Process process = new ProcessBuilder(binary, "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        var server = new RedisServer(process, port, dir);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try (var probe = new Socket("127.0.0.1", port)) {
                return server;
            } catch (IOException e) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    server.close();
                    throw new IllegalStateException("redis-server did not start: " + Files.readString(dir.resolve("redis.log")));
                }
                Thread.sleep(20);
            }
        }
    }

    String url() {
        return "redis://127.0.0.1:" + port;
    }

    @Override
    public void close() throws IOException {
        process.destroy();
        try {
            if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) process.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
