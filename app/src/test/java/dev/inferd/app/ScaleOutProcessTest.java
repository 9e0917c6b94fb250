package dev.inferd.app;

import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.JsonValue;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCreateParams;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import com.openai.models.responses.ResponseStreamEvent;
import dev.inferd.engine.Fixtures;
import dev.inferd.server.cloud.auth.Accounts;
import dev.inferd.server.cloud.auth.Actor;
import dev.inferd.server.cloud.auth.KeySpec;
import dev.inferd.server.store.CatalogModel;
import dev.inferd.server.store.CatalogStore;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.KeyScopes;
import dev.inferd.server.store.UsageFilter;
import dev.inferd.server.store.UsageStore;
import dev.inferd.server.store.WorkerRow;
import dev.inferd.server.store.WorkerStore;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
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
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A deployment of real processes on one machine: two {@code inferd gateway}s behind HAProxy, two
 * {@code inferd worker}s, one PostgreSQL (zonky's embedded server). The OpenAI SDK through HAProxy gets what
 * {@code cloud} answers; a key revoked on one gateway is refused by the other; a worker killed mid-stream ends that
 * stream with an error event and the next requests go to the other; a gateway killed keeps the record of every request
 * it answered; two models land on the two workers, each loaded once, and a model asked of both gateways at once is
 * loaded by one worker. 300 requests let go at once with one key through both gateways take what one bucket of 60 a
 * second allows and get 429s with Retry-After for the rest, with the buckets in PostgreSQL and, through two more
 * gateways given {@code --redis}, in Redis (Debian's redis-server).
 */
@Tag("slow")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ScaleOutProcessTest {

    private static final String SECRET = "process-test-shared-secret-0123456789";
    private static final String OPERATOR = "process-test-operator-token";
    private static final Duration START = Duration.ofSeconds(120);
    /** The keys' rate limit in the burst tests, requests per second. */
    private static final int LIMIT = 60;

    private static final List<Process> processes = new ArrayList<>();
    private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static Path dir;
    private static EmbeddedPostgres postgres;
    private static String url;
    private static String accountId;
    private static String key;
    private static int[] gateways;
    private static Process[] gatewayProcesses;
    private static int[] workers;
    private static Process[] workerProcesses;
    private static int balancer;
    private static String haproxy;

    @BeforeAll
    static void deploy() throws Exception {
        Path model = Fixtures.storiesModel();
        haproxy = Fixtures.fromSetupScript("test-haproxy.sh", "HAProxy for the gateways' load balancer").getLast();
        dir = Files.createTempDirectory("inferd-scaleout");
        postgres = EmbeddedPostgres.builder().start();
        url = postgres.getJdbcUrl("postgres", "postgres");
        try (Database db = Database.open(url)) {
            long now = System.currentTimeMillis() / 1000;
            new CatalogStore(db).addAll(List.of(new CatalogModel("stories-a", "user", "chat", model.toString(), now),
                    new CatalogModel("stories-b", "user", "chat", model.toString(), now),
                    new CatalogModel("stories-c", "user", "chat", model.toString(), now)));
            var accounts = new Accounts(db, Clock.systemUTC());
            accountId = accounts.createAccount("acme", Actor.cli()).id();
            key = accounts.createKey(accountId, KeySpec.named("main"), Actor.cli()).secret();
        }
        workers = new int[]{freePort(), freePort()};
        workerProcesses = new Process[2];
        for (int i = 0; i < 2; i++) {
            workerProcesses[i] = start("worker-" + i, "worker", "--database", url, "--port", Integer.toString(workers[i]),
                    "--worker-id", "w" + i, "--heartbeat", "500ms", "--threads", "1", "--offline");
        }
        gateways = new int[]{freePort(), freePort()};
        gatewayProcesses = new Process[2];
        for (int i = 0; i < 2; i++) {
            gatewayProcesses[i] = start("gateway-" + i, "gateway", "--database", url, "--port", Integer.toString(gateways[i]),
                    "--worker-ttl", "2s", "--threads", "1");
        }
        for (int port : workers) awaitReady(port);
        for (int port : gateways) awaitReady(port);
        balancer = startBalancer("haproxy", gateways);
        awaitReady(balancer);
    }

    @AfterAll
    static void stop() throws IOException, InterruptedException {
        for (Process p : processes.reversed()) {
            p.destroyForcibly();
            p.waitFor();
        }
        if (postgres != null) postgres.close();
    }

    @Test
    @Order(1)
    void theSdkThroughHaproxyGetsWhatCloudAnswers() throws Exception {
        int cloudPort = freePort();
        // the load and warm-up of its first model may take longer than the default 10 s on a loaded machine
        Process cloud = start("cloud", "cloud", "--database", url, "--port", Integer.toString(cloudPort), "--threads", "1",
                "--offline", "--load-wait", "60s");
        try {
            awaitReady(cloudPort);
            var params = ChatCompletionCreateParams.builder().model("stories-a").addUserMessage("Once upon a time")
                    .temperature(0.0).maxCompletionTokens(24).build();
            String viaCloud = client(cloudPort, key).chat().completions().create(params).choices().getFirst().message()
                    .content().orElseThrow();
            for (int i = 0; i < 4; i++) { // round robin: both gateways answer
                String viaBalancer = client(balancer, key).chat().completions().create(params).choices().getFirst()
                        .message().content().orElseThrow();
                assertThat(viaBalancer).isEqualTo(viaCloud).isNotBlank();
            }
            var streamed = new StringBuilder();
            try (var stream = client(balancer, key).chat().completions().createStreaming(params)) {
                stream.stream().forEach(c -> c.choices().forEach(ch -> ch.delta().content().ifPresent(streamed::append)));
            }
            assertThat(streamed.toString()).isEqualTo(viaCloud);
        } finally {
            cloud.destroyForcibly();
            cloud.waitFor();
        }
    }

    @Test
    @Order(2)
    void twoModelsArePlacedOnTheTwoWorkersAndBothServed() throws Exception {
        var params = ChatCompletionCreateParams.builder().addUserMessage("Hello").maxCompletionTokens(4);
        assertThat(client(balancer, key).chat().completions().create(params.model("stories-a").build()).choices()).hasSize(1);
        awaitRegistry(rows -> rows.stream().anyMatch(w -> w.models().contains("stories-a")));
        assertThat(client(balancer, key).chat().completions().create(params.model("stories-b").build()).choices()).hasSize(1);
        List<WorkerRow> rows = awaitRegistry(r -> r.stream().anyMatch(w -> w.models().contains("stories-b")));
        // stories-a was asked of both gateways in turn before it was loaded: it was loaded once all the same
        var holdingA = holding(rows, "stories-a");
        var holdingB = holding(rows, "stories-b");
        assertThat(holdingA).as("stories-a on %s, stories-b on %s", holdingA, holdingB).hasSize(1);
        assertThat(holdingB).as("stories-a on %s, stories-b on %s", holdingA, holdingB).hasSize(1)
                .doesNotContainAnyElementsOf(holdingA);
    }

    @Test
    @Order(3)
    void theFirstRequestsForAModelAtBothGatewaysAtOnceLoadItOnOneWorker() throws Exception {
        String body = "{\"model\":\"stories-c\",\"max_tokens\":4,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
        // each gateway has a stream under way on a different worker (stories-a's and stories-b's), so each, deciding
        // alone before the workers report those streams, would load stories-c on the other worker
        List<InputStream> streams = new ArrayList<>();
        streams.add(openStream(gateways[0], "stories-a"));
        streams.add(openStream(gateways[1], "stories-b"));
        var go = new CountDownLatch(1);
        List<Future<HttpResponse<String>>> answers = new ArrayList<>();
        try (var clients = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int port : gateways) {
                var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/chat/completions"))
                        .header("Authorization", "Bearer " + key).header("Content-Type", "application/json")
                        .timeout(Duration.ofSeconds(120)).POST(HttpRequest.BodyPublishers.ofString(body)).build();
                answers.add(clients.submit(() -> {
                    go.await();
                    return http.send(request, HttpResponse.BodyHandlers.ofString());
                }));
            }
            go.countDown();
        } finally {
            for (InputStream stream : streams) stream.close(); // the client leaves: the worker stops that generation
        }
        for (var answer : answers) assertThat(answer.get().statusCode()).as(answer.get().body()).isEqualTo(200);
        // a second load would have been answered only once done, so a renewal after the answers shows every load
        awaitRegistry(r -> r.stream().anyMatch(w -> w.models().contains("stories-c")));
        Thread.sleep(1500);
        List<WorkerRow> rows = awaitRegistry(r -> true);
        assertThat(rows.stream().filter(w -> w.models().contains("stories-c") || w.loading().contains("stories-c"))
                .map(WorkerRow::id)).as("workers holding stories-c: %s", rows).hasSize(1);
        long loadedIn = 0;
        for (int i = 0; i < workers.length; i++) {
            if (Files.readString(dir.resolve("worker-" + i + ".log")).contains("model stories-c loaded")) loadedIn++;
        }
        assertThat(loadedIn).as("worker logs saying stories-c loaded").isEqualTo(1);
    }

    @Test
    @Order(3)
    void aKeyRevokedOnOneGatewayIsRefusedByTheOther() throws Exception {
        String keyId;
        String secret;
        try (Database db = Database.open(url)) {
            var issued = new Accounts(db, Clock.systemUTC()).createKey(accountId, KeySpec.named("revoked"), Actor.cli());
            keyId = issued.key().id();
            secret = issued.secret();
        }
        assertThat(models(gateways[1], secret).statusCode()).isEqualTo(200);
        var revoked = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateways[0]
                        + "/admin/v1/accounts/acme/keys/" + keyId + "/revoke"))
                .header("Authorization", "Bearer " + OPERATOR).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(revoked.statusCode()).as(revoked.body()).isEqualTo(200);
        assertThat(models(gateways[1], secret).statusCode()).isEqualTo(401);
    }

    @Test
    @Order(3)
    void threeHundredRequestsAtOnceThroughBothGatewaysTakeOneBucketOfSixtyASecond() throws Exception {
        Burst burst = Burst.offer(balancer, newKey("burst"));
        burst.assertOneSharedBucket();
    }

    @Test
    @Order(4)
    void aWorkerKilledMidStreamEndsItWithAnErrorAndTheNextRequestsGoToTheOther() throws Exception {
        String body = "{\"model\":\"stories-a\",\"stream\":true,\"max_tokens\":400,\"n\":16,\"temperature\":1.0,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Once\"}]}";
        HttpResponse<InputStream> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateways[0]
                        + "/v1/chat/completions")).header("Authorization", "Bearer " + key)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(response.statusCode()).isEqualTo(200);
        List<String> events = new ArrayList<>();
        try (var reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            events.add(reader.readLine());
            String holder = awaitRegistry(rows -> true).stream().filter(w -> w.models().contains("stories-a"))
                    .findFirst().orElseThrow().id();
            int index = Integer.parseInt(holder.substring(1));
            workerProcesses[index].destroyForcibly(); // SIGKILL
            workerProcesses[index].waitFor();
            String line;
            while ((line = reader.readLine()) != null) events.add(line);
        }
        String last = events.stream().filter(l -> l.startsWith("data: ")).reduce((x, y) -> y).orElseThrow();
        assertThat(events).as("a stream cut by its worker never says it is done").doesNotContain("data: [DONE]");
        assertThat(last).contains("\"error\"").contains("\"code\":502");

        var params = ChatCompletionCreateParams.builder().model("stories-a").addUserMessage("Hello").maxCompletionTokens(4).build();
        for (int i = 0; i < 4; i++) {
            assertThat(client(balancer, key).chat().completions().create(params).choices()).hasSize(1);
        }
    }

    @Test
    @Order(5)
    void aGatewayKilledKeepsTheRecordOfEveryRequestItAnswered() throws Exception {
        String keyId;
        String secret;
        try (Database db = Database.open(url)) {
            var issued = new Accounts(db, Clock.systemUTC()).createKey(accountId, KeySpec.named("billed"), Actor.cli());
            keyId = issued.key().id();
            secret = issued.secret();
        }
        String body = "{\"model\":\"stories-b\",\"max_tokens\":4,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";
        int answered = 0;
        for (int i = 0; i < 15; i++) {
            var r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + gateways[1] + "/v1/chat/completions"))
                    .header("Authorization", "Bearer " + secret).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) answered++;
        }
        gatewayProcesses[1].destroyForcibly(); // SIGKILL right after the last answer: no shutdown hook runs
        gatewayProcesses[1].waitFor();
        assertThat(answered).isEqualTo(15);
        try (Database db = Database.open(url)) {
            long records = new UsageStore(db).totals(new UsageFilter(accountId, keyId, null, null, null)).requests();
            assertThat(records).isEqualTo(answered);
        }
        // the balancer's health check takes the dead gateway out: requests keep being answered
        Thread.sleep(1000);
        var params = ChatCompletionCreateParams.builder().model("stories-b").addUserMessage("Hello").maxCompletionTokens(4).build();
        for (int i = 0; i < 3; i++) assertThat(client(balancer, key).chat().completions().create(params).choices()).hasSize(1);
    }

    @Test
    @Order(6)
    void responsesThroughHaproxyAreKeptInTheDatabaseContinuedAndBilled() throws Exception {
        OpenAIClient client = client(balancer, key);
        var first = client.responses().create(ResponseCreateParams.builder().model("stories-a").input("Once upon a time")
                .temperature(0.0).maxOutputTokens(16L).build());
        assertThat(client.responses().retrieve(first.id()).id()).isEqualTo(first.id());
        Response next = null;
        try (var stream = client.responses().createStreaming(ResponseCreateParams.builder().model("stories-a")
                .input("And then").previousResponseId(first.id()).temperature(0.0).maxOutputTokens(16L).build())) {
            for (ResponseStreamEvent event : (Iterable<ResponseStreamEvent>) stream.stream()::iterator) {
                // 16 tokens end the story early: response.incomplete
                if (event.isCompleted()) next = event.asCompleted().response();
                if (event.isIncomplete()) next = event.asIncomplete().response();
            }
        }
        assertThat(next).as("the stream ended with its response").isNotNull();
        assertThat(next.usage().orElseThrow().inputTokens()).isGreaterThan(first.usage().orElseThrow().inputTokens());
        assertThat(client.responses().inputItems().list(next.id()).data()).hasSize(1);
        try (Database db = Database.open(url)) {
            var records = new UsageStore(db).list(UsageFilter.account(accountId), 1000).stream()
                    .filter(r -> r.endpoint().equals("responses") && r.model() != null).toList();
            assertThat(records).extracting(r -> (long) r.promptTokens()).contains(first.usage().orElseThrow().inputTokens(),
                    next.usage().orElseThrow().inputTokens());
            assertThat(records).extracting(r -> (long) r.completionTokens()).contains(first.usage().orElseThrow().outputTokens(),
                    next.usage().orElseThrow().outputTokens());
        }
    }

    @Test
    @Order(7)
    void messagesThroughHaproxyAnswerAndStreamAsOneAndAreBilled() throws Exception {
        var client = AnthropicOkHttpClient.builder().baseUrl("http://127.0.0.1:" + balancer).apiKey(key)
                .maxRetries(0).responseValidation(true).timeout(Duration.ofSeconds(60)).build();
        try {
            // greedy, so that the whole answer and the stream are one text (this SDK has no temperature setter)
            var params = MessageCreateParams.builder().model("stories-b").maxTokens(16)
                    .putAdditionalBodyProperty("temperature", JsonValue.from(0.0)).addUserMessage("Once upon a time").build();
            Message whole = client.messages().create(params);
            var accumulator = MessageAccumulator.create();
            try (var stream = client.messages().createStreaming(params)) {
                stream.stream().forEach(accumulator::accumulate);
            }
            Message streamed = accumulator.message();
            assertThat(streamed.content().getFirst().text().orElseThrow().text())
                    .isEqualTo(whole.content().getFirst().text().orElseThrow().text()).isNotBlank();
            try (Database db = Database.open(url)) {
                var records = new UsageStore(db).list(UsageFilter.account(accountId), 1000).stream()
                        .filter(r -> r.endpoint().equals("messages")).toList();
                // Anthropic's input_tokens leave out the cache's reads; a record counts the whole prompt, as cloud's do
                long prompt = whole.usage().inputTokens() + whole.usage().cacheReadInputTokens().orElse(0L);
                assertThat(records).hasSize(2).allSatisfy(r -> {
                    assertThat(r.status()).isEqualTo(200);
                    assertThat((long) r.promptTokens()).isEqualTo(prompt);
                    assertThat((long) r.completionTokens()).isEqualTo(whole.usage().outputTokens());
                });
                assertThat(records).extracting(r -> (long) r.cachedTokens()).contains(whole.usage().cacheReadInputTokens().orElse(0L));
            }
        } finally {
            client.close();
        }
    }

    @Test
    @Order(8)
    void withTheBucketsInRedisTheLimitHoldsAcrossGatewaysAndRequestsAreAnswered() throws Exception {
        String redis = startRedis();
        int[] redisGateways = {freePort(), freePort()};
        for (int i = 0; i < 2; i++) {
            start("gateway-redis-" + i, "gateway", "--database", url, "--redis", redis, "--port",
                    Integer.toString(redisGateways[i]), "--worker-ttl", "2s", "--threads", "1");
        }
        for (int port : redisGateways) awaitReady(port);
        int redisBalancer = startBalancer("haproxy-redis", redisGateways);
        awaitReady(redisBalancer);

        var params = ChatCompletionCreateParams.builder().model("stories-a").addUserMessage("Hello").maxCompletionTokens(4).build();
        assertThat(client(redisBalancer, key).chat().completions().create(params).choices()).hasSize(1);

        Burst burst = Burst.offer(redisBalancer, newKey("redis-burst"));
        burst.assertOneSharedBucket();
        var client = io.lettuce.core.RedisClient.create(redis);
        try (var connection = client.connect()) {
            assertThat(connection.sync().keys("inferd:rate:*")).as("the buckets are Redis keys").isNotEmpty();
        } finally {
            client.shutdown();
        }
    }

    /**
     * {@value #BURST} requests for the model list, all let go at once through one balancer with one new key, and what
     * came back: the answers per status and per gateway ({@code x-served-by}), and the seconds from letting them go
     * to the last answer, a window that holds every take from the key's bucket.
     */
    private record Burst(int allowed, int refused, double seconds, Map<String, Integer> allowedBy, Map<String, Integer> refusedBy) {
        static final int BURST = 300;

        static Burst offer(int port, String secret) throws Exception {
            var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/models"))
                    .header("Authorization", "Bearer " + secret).timeout(Duration.ofSeconds(60)).GET().build();
            var go = new CountDownLatch(1);
            List<Future<HttpResponse<String>>> answers = new ArrayList<>();
            long started;
            try (var clients = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int i = 0; i < BURST; i++) {
                    answers.add(clients.submit(() -> {
                        go.await();
                        return http.send(request, HttpResponse.BodyHandlers.ofString());
                    }));
                }
                started = System.nanoTime();
                go.countDown();
            }
            double seconds = (System.nanoTime() - started) / 1e9;
            Map<String, Integer> allowedBy = new TreeMap<>();
            Map<String, Integer> refusedBy = new TreeMap<>();
            for (var answer : answers) {
                HttpResponse<String> r = answer.get();
                String gateway = r.headers().firstValue("x-served-by").orElse("?");
                switch (r.statusCode()) {
                    case 200 -> allowedBy.merge(gateway, 1, Integer::sum);
                    case 429 -> {
                        assertThat(r.headers().firstValue("retry-after")).as("Retry-After").hasValueSatisfying(
                                v -> assertThat(Integer.parseInt(v)).isPositive());
                        assertThat(r.headers().firstValue("x-ratelimit-remaining-requests")).hasValue("0");
                        refusedBy.merge(gateway, 1, Integer::sum);
                    }
                    default -> throw new AssertionError("status " + r.statusCode() + " from " + gateway + ": " + r.body());
                }
            }
            int allowed = allowedBy.values().stream().mapToInt(Integer::intValue).sum();
            int refused = refusedBy.values().stream().mapToInt(Integer::intValue).sum();
            var burst = new Burst(allowed, refused, seconds, allowedBy, refusedBy);
            System.out.printf(Locale.ROOT, "%d requests at once: %d allowed, %d refused in %.2f s (one bucket allows at most %d); "
                    + "allowed per gateway %s, refused %s%n", BURST, allowed, refused, seconds, burst.oneBucketAllows(), allowedBy, refusedBy);
            return burst;
        }

        /**
         * A bucket of {@value #LIMIT} refilled greedily at {@value #LIMIT} a second lets through at most its capacity
         * plus what refills while it is taken from: {@code LIMIT + ceil(LIMIT * seconds)}. Bucket4j keeps a distributed
         * bucket exact (integer arithmetic, each take one compare-and-swap or row lock in the shared store) up to the
         * clocks of the processes that take from it, one machine's here, so that is the bound, with no slack; one
         * bucket per gateway would let through twice as many.
         */
        int oneBucketAllows() {
            return LIMIT + (int) Math.ceil(LIMIT * seconds);
        }

        void assertOneSharedBucket() {
            assertThat(allowed + refused).isEqualTo(BURST);
            assertThat(allowed).as("allowed in %.2f s", seconds).isBetween(LIMIT, oneBucketAllows());
            assertThat(refused).as("429s").isPositive();
            Set<String> gateways = new TreeSet<>(allowedBy.keySet());
            gateways.addAll(refusedBy.keySet());
            assertThat(gateways).as("both gateways answered").containsExactly("g0", "g1");
        }
    }

    /** A new key of the first account with the limit of {@value #LIMIT} requests a second, so its bucket starts full. */
    private static String newKey(String name) {
        try (Database db = Database.open(url)) {
            return new Accounts(db, Clock.systemUTC()).createKey(accountId,
                    new KeySpec(name, KeyScopes.EVERYTHING, null, LIMIT), Actor.cli()).secret();
        }
    }

    /** Debian's redis-server ({@code scripts/test-redis.sh}) on a free port, saving nothing; its URL. */
    private static String startRedis() throws Exception {
        String binary = Fixtures.fromSetupScript("test-redis.sh", "redis-server for the Redis rate limit backend").getLast();
        int port = freePort();
        Path data = Files.createDirectories(dir.resolve("redis"));
        processes.add(new ProcessBuilder(binary, "--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", data.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile()).start());
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            try (var probe = new java.net.Socket("127.0.0.1", port)) {
                return "redis://127.0.0.1:" + port;
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline) throw new AssertionError("redis-server did not start (logs in " + dir + ")");
                Thread.sleep(20);
            }
        }
    }

    /** HAProxy on a free port, round robin over {@code gatewayPorts}; each answer names its gateway in {@code x-served-by}. */
    private static int startBalancer(String name, int... gatewayPorts) throws IOException {
        int port = freePort();
        var servers = new StringBuilder();
        for (int i = 0; i < gatewayPorts.length; i++) {
            servers.append("  server g%d 127.0.0.1:%d check inter 300ms fall 2 rise 1%n".formatted(i, gatewayPorts[i]));
        }
        Path config = dir.resolve(name + ".cfg");
        Files.writeString(config, """
                global
                  maxconn 512
                defaults
                  mode http
                  timeout connect 2s
                  timeout check 3s
                  timeout client 5m
                  timeout server 5m
                frontend api
                  bind 127.0.0.1:%d
                  default_backend gateways
                backend gateways
                  balance roundrobin
                  option httpchk GET /ready
                  http-response set-header x-served-by %%s
                %s""".formatted(port, servers));
        var builder = new ProcessBuilder(haproxy, "-f", config.toString(), "-db").redirectErrorStream(true)
                .redirectOutput(dir.resolve(name + ".log").toFile());
        processes.add(builder.start());
        return port;
    }

    private static OpenAIClient client(int port, String secret) {
        return OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + port + "/v1").apiKey(secret).maxRetries(0)
                .responseValidation(true).timeout(Duration.ofSeconds(60)).build();
    }

    private static HttpResponse<String> models(int port, String secret) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/models"))
                .header("Authorization", "Bearer " + secret).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A long chat stream for {@code model} through the gateway on {@code port}, its first event read. */
    private static InputStream openStream(int port, String model) throws Exception {
        String body = "{\"model\":\"" + model + "\",\"stream\":true,\"max_tokens\":400,\"n\":16,\"temperature\":1.0,"
                + "\"messages\":[{\"role\":\"user\",\"content\":\"Once\"}]}";
        HttpResponse<InputStream> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                        + "/v1/chat/completions")).header("Authorization", "Bearer " + key)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(response.statusCode()).isEqualTo(200);
        InputStream in = response.body();
        while (true) { // up to the end of the first event's line
            int b = in.read();
            if (b < 0 || b == '\n') break;
        }
        return in;
    }

    private static List<String> holding(List<WorkerRow> rows, String model) {
        return rows.stream().filter(w -> w.models().contains(model)).map(WorkerRow::id).toList();
    }

    private static List<WorkerRow> awaitRegistry(java.util.function.Predicate<List<WorkerRow>> condition) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        try (Database db = Database.open(url)) {
            var store = new WorkerStore(db);
            while (true) {
                List<WorkerRow> rows = store.list();
                if (condition.test(rows)) return rows;
                if (System.nanoTime() > deadline) throw new AssertionError("the registry never got there: " + rows);
                Thread.sleep(100);
            }
        }
    }

    private static Process start(String name, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m", "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), "dev.inferd.app.Main"));
        command.addAll(List.of(args));
        var builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve(name + ".log").toFile());
        builder.environment().put("INFERD_HOME", dir.toString());
        builder.environment().put("INFERD_WORKER_SECRET", SECRET);
        builder.environment().put("INFERD_OPERATOR_TOKEN", OPERATOR);
        Process p = builder.start();
        processes.add(p);
        return p;
    }

    private static void awaitReady(int port) throws InterruptedException {
        long deadline = System.nanoTime() + START.toNanos();
        String last = "no answer";
        while (System.nanoTime() < deadline) {
            try {
                var r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ready"))
                        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) return;
                last = r.statusCode() + " " + r.body();
            } catch (IOException notYet) {
                last = notYet.toString();
            }
            Thread.sleep(200);
        }
        throw new AssertionError("port " + port + " was not ready within " + START + ": " + last + " (logs in " + dir + ")");
    }

    private static int freePort() throws IOException {
        try (var probe = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            return probe.getLocalPort();
        }
    }
}
