package dev.inferd.server.cloud;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.inferd.server.cloud.auth.Accounts;
import dev.inferd.server.cloud.auth.Actor;
import dev.inferd.server.cloud.auth.KeySpec;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.KeyScopes;
import dev.inferd.server.store.TestDatabases;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Billing survives SIGKILL: a cloud deployment in a child JVM ({@link CrashTargetMain}) is killed with
 * {@code kill -9} while concurrent clients send chat completions (whole and streamed), completions and model lists;
 * then, per endpoint, the records in the database are at least the answers the clients received whole (a body read
 * to its end, a stream read to {@code [DONE]}), and at most those plus the requests whose clients got no whole
 * answer. Several rounds on one database, each with a fresh key, on SQLite and on PostgreSQL.
 */
@Tag("slow")
class CloudCrashFloodTest {

    private static final int ROUNDS = 3;
    private static final int CLIENTS = 12;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    /** What one endpoint's clients saw: answers received whole, and requests sent without a whole answer. */
    private record Tally(AtomicLong whole, AtomicLong notWhole) {
        Tally() {
            this(new AtomicLong(), new AtomicLong());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {TestDatabases.SQLITE, TestDatabases.POSTGRESQL})
    void afterAKillTheRecordsAreTheWholeAnswersAndAtMostTheUnfinishedRequestsMore(String kind) throws Exception {
        String url = TestDatabases.url(kind);
        String accountId;
        try (Database db = Database.open(url)) {
            accountId = new Accounts(db, Clock.systemUTC()).createAccount("crash", Actor.cli()).id();
        }
        long wholeInAll = 0;
        for (int round = 1; round <= ROUNDS; round++) {
            String keyId;
            String secret;
            try (Database db = Database.open(url)) {
                var key = new Accounts(db, Clock.systemUTC())
                        .createKey(accountId, new KeySpec("round-" + round, KeyScopes.EVERYTHING, null, 100_000), Actor.cli());
                keyId = key.key().id();
                secret = key.secret();
            }
            Map<String, Tally> seen = floodAndKill(url, secret, round);
            Map<String, long[]> records = records(url, keyId);
            for (var entry : seen.entrySet()) {
                String endpoint = entry.getKey();
                long whole = entry.getValue().whole().get();
                long notWhole = entry.getValue().notWhole().get();
                long[] recorded = records.getOrDefault(endpoint, new long[2]);
                String context = kind + " round " + round + " " + endpoint + ": " + whole + " whole answers, " + notWhole
                        + " requests without one, " + recorded[0] + " records (" + recorded[1] + " with status 200)";
                System.out.println(context);
                assertThat(recorded[1]).as(context).isGreaterThanOrEqualTo(whole);
                assertThat(recorded[0]).as(context).isLessThanOrEqualTo(whole + notWhole);
                wholeInAll += whole;
            }
            assertThat(records.keySet()).as("endpoints recorded").isSubsetOf(seen.keySet());
        }
        assertThat(wholeInAll).as("answers received before the kills").isGreaterThan(ROUNDS * 10L);
    }

    /** Per endpoint: {all records, records with status 200} of the key. */
    private static Map<String, long[]> records(String url, String keyId) {
        try (Database db = Database.open(url)) {
            Map<String, long[]> counts = new TreeMap<>();
            db.query("SELECT endpoint, status, COUNT(*) AS n FROM usage_records WHERE key_id = ? GROUP BY endpoint, status",
                    r -> {
                        long[] c = counts.computeIfAbsent(r.getString("endpoint"), e -> new long[2]);
                        long n = r.getLong("n");
                        c[0] += n;
                        if (r.getInt("status") == 200) c[1] += n;
                        return null;
                    }, keyId);
            return counts;
        }
    }

    private Map<String, Tally> floodAndKill(String url, String secret, int round) throws Exception {
        Path portFile = dir.resolve("port-" + round);
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), CrashTargetMain.class.getName(), url, portFile.toString());
        Process cloud = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("cloud-" + round + ".log").toFile()).start();
        Map<String, Tally> seen = new ConcurrentHashMap<>();
        try {
            int port = awaitPort(portFile, cloud);
            String base = "http://127.0.0.1:" + port;
            var http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
            var stop = new AtomicBoolean();
            var answered = new AtomicLong();
            List<Thread> clients = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                clients.add(Thread.ofVirtual().start(() -> {
                    while (!stop.get()) {
                        Exchange exchange = Exchange.random(base, secret);
                        Tally tally = seen.computeIfAbsent(exchange.endpoint(), e -> new Tally());
                        if (exchange.isWhole(http)) {
                            tally.whole().incrementAndGet();
                            answered.incrementAndGet();
                        } else {
                            tally.notWhole().incrementAndGet();
                        }
                    }
                }));
            }
            // kill at a random moment once the flood runs
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (answered.get() < 30 && System.nanoTime() < deadline) Thread.sleep(10);
            Thread.sleep(ThreadLocalRandom.current().nextInt(200, 1200));
            stop.set(true);
            cloud.destroyForcibly(); // SIGKILL: no shutdown hook, no flush
            cloud.waitFor();
            for (Thread t : clients) t.join(Duration.ofSeconds(30));
        } finally {
            cloud.destroyForcibly();
            cloud.waitFor();
        }
        return seen;
    }

    /** One request of a random kind, and what makes its answer whole. */
    private record Exchange(String endpoint, HttpRequest request, boolean stream) {

        static Exchange random(String base, String secret) {
            int pick = ThreadLocalRandom.current().nextInt(4);
            return switch (pick) {
                case 0 -> new Exchange("models", get(base + "/v1/models", secret), false);
                case 1 -> new Exchange("completions", post(base + "/v1/completions", secret,
                        "{\"model\":\"" + CloudGatewayTest.CHAT + "\",\"prompt\":\"Once upon\"}"), false);
                case 2 -> new Exchange("chat.completions", post(base + "/v1/chat/completions", secret,
                        "{\"model\":\"" + CloudGatewayTest.CHAT + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}"), false);
                default -> new Exchange("chat.completions", post(base + "/v1/chat/completions", secret,
                        "{\"model\":\"" + CloudGatewayTest.SLOW + "\",\"stream\":true,\"max_tokens\":8,"
                                + "\"stream_options\":{\"include_usage\":true},"
                                + "\"messages\":[{\"role\":\"user\",\"content\":\"Sing\"}]}"), true);
            };
        }

        /** Sends the request; true when its answer was received whole (a 200 body to its end, a stream to [DONE]). */
        boolean isWhole(HttpClient http) {
            try {
                HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
                try (InputStream body = response.body()) {
                    if (response.statusCode() != 200) return false;
                    return stream ? readsToDone(body) : parsesWhole(body);
                }
            } catch (IOException | RuntimeException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        private static boolean readsToDone(InputStream body) throws IOException {
            var lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (line.equals("data: [DONE]")) return true;
            }
            return false;
        }

        private static boolean parsesWhole(InputStream body) throws IOException {
            byte[] bytes = body.readAllBytes(); // throws when the connection ends short of the body
            return JSON.readTree(bytes).has("object");
        }

        private static HttpRequest get(String url, String secret) {
            return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20))
                    .header("Authorization", "Bearer " + secret).GET().build();
        }

        private static HttpRequest post(String url, String secret, String json) {
            return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20))
                    .header("Authorization", "Bearer " + secret).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(json)).build();
        }
    }

    private static int awaitPort(Path portFile, Process process) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) throw new AssertionError("the cloud process exited with " + process.exitValue());
            if (Files.exists(portFile)) return Integer.parseInt(Files.readString(portFile).strip());
            Thread.sleep(50);
        }
        throw new AssertionError("the cloud process did not listen within 90 s");
    }
}
