package dev.inferd.app;

import dev.inferd.server.cloud.auth.Accounts;
import dev.inferd.server.cloud.auth.Actor;
import dev.inferd.server.cloud.auth.KeySpec;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.UsageFilter;
import dev.inferd.server.store.UsageStore;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code inferd cloud} killed with SIGKILL keeps the usage record of every request it answered (each is committed
 * before its answer is complete), and its database opens again: the process is a real child JVM, the kill a real
 * {@code kill -9} right after the answers. The gateway's flood of concurrent clients under kills is
 * {@code CloudCrashFloodTest}.
 */
@Tag("slow")
class CloudCrashTest {
    @TempDir
    Path dir;

    @Test
    void usageWrittenBeforeAKillSurvivesIt() throws Exception {
        String url = "jdbc:sqlite:" + dir.resolve("cloud.db");
        String secret;
        String accountId;
        try (Database db = Database.open(url)) {
            var accounts = new Accounts(db, Clock.systemUTC());
            accountId = accounts.createAccount("acme", Actor.cli()).id();
            secret = accounts.createKey(accountId, KeySpec.named("k"), Actor.cli()).secret();
        }
        int port;
        try (var probe = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), "dev.inferd.app.Main",
                "cloud", "--database", url, "--port", Integer.toString(port), "--threads", "1"));
        var builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("cloud.log").toFile());
        builder.environment().put("INFERD_HOME", dir.toString());
        Process cloud = builder.start();
        try {
            awaitListening(port, cloud);
            var http = HttpClient.newHttpClient();
            int answered = 0;
            for (int i = 0; i < 20; i++) {
                var response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/models"))
                        .header("Authorization", "Bearer " + secret).GET().build(), HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) answered++;
            }
            assertThat(answered).isEqualTo(20);
            // one more request in flight as the process dies
            http.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/models"))
                    .header("Authorization", "Bearer " + secret).GET().build(), HttpResponse.BodyHandlers.discarding());
        } finally {
            cloud.destroyForcibly(); // SIGKILL: no shutdown hook runs
            cloud.waitFor();
        }
        try (Database db = Database.open(url)) {
            long requests = new UsageStore(db).totals(UsageFilter.account(accountId)).requests();
            assertThat(requests).isBetween(20L, 21L);
        }
    }

    private static void awaitListening(int port, Process process) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) throw new AssertionError("inferd cloud exited with " + process.exitValue());
            try (var socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return;
            } catch (java.io.IOException notYet) {
                Thread.sleep(100);
            }
        }
        throw new AssertionError("inferd cloud did not listen within 90 s");
    }
}
