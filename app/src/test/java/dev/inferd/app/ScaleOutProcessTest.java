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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A deployment of real processes on one machine: two {@code inferd gateway}s behind HAProxy, two
 * {@code inferd worker}s, one PostgreSQL (zonky's embedded server). The OpenAI SDK through HAProxy gets what
 * {@code cloud} answers; a key revoked on one gateway is refused by the other; a worker killed mid-stream ends that
 * stream with an error event and the next requests go to the other; a gateway killed keeps the record of every request
 * it answered; two models land on the two workers.
 */
@Tag("slow")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ScaleOutProcessTest {

    private static final String SECRET = "process-test-shared-secret-0123456789";
    private static final String OPERATOR = "process-test-operator-token";
    private static final Duration START = Duration.ofSeconds(120);

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

    @BeforeAll
    static void deploy() throws Exception {
        Path model = Fixtures.storiesModel();
        String haproxy = Fixtures.fromSetupScript("test-haproxy.sh", "HAProxy for the gateways' load balancer").getLast();
        dir = Files.createTempDirectory("inferd-scaleout");
        postgres = EmbeddedPostgres.builder().start();
        url = postgres.getJdbcUrl("postgres", "postgres");
        try (Database db = Database.open(url)) {
            long now = System.currentTimeMillis() / 1000;
            new CatalogStore(db).addAll(List.of(new CatalogModel("stories-a", "user", "chat", model.toString(), now),
                    new CatalogModel("stories-b", "user", "chat", model.toString(), now)));
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
        balancer = freePort();
        Path config = dir.resolve("haproxy.cfg");
        Files.writeString(config, """
                global
                  maxconn 512
                defaults
                  mode http
                  timeout connect 2s
                  timeout client 5m
                  timeout server 5m
                frontend api
                  bind 127.0.0.1:%d
                  default_backend gateways
                backend gateways
                  balance roundrobin
                  option httpchk GET /ready
                  server g0 127.0.0.1:%d check inter 300ms fall 2 rise 1
                  server g1 127.0.0.1:%d check inter 300ms fall 2 rise 1
                """.formatted(balancer, gateways[0], gateways[1]));
        var builder = new ProcessBuilder(haproxy, "-f", config.toString(), "-db").redirectErrorStream(true)
                .redirectOutput(dir.resolve("haproxy.log").toFile());
        processes.add(builder.start());
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
        Process cloud = start("cloud", "cloud", "--database", url, "--port", Integer.toString(cloudPort), "--threads", "1",
                "--offline");
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
        String a = rows.stream().filter(w -> w.models().contains("stories-a")).findFirst().orElseThrow().id();
        String b = rows.stream().filter(w -> w.models().contains("stories-b")).findFirst().orElseThrow().id();
        assertThat(a).isNotEqualTo(b);
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

    private static OpenAIClient client(int port, String secret) {
        return OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + port + "/v1").apiKey(secret).maxRetries(0)
                .responseValidation(true).timeout(Duration.ofSeconds(60)).build();
    }

    private static HttpResponse<String> models(int port, String secret) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/models"))
                .header("Authorization", "Bearer " + secret).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private static List<WorkerRow> awaitRegistry(java.util.function.Predicate<List<WorkerRow>> condition) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
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
