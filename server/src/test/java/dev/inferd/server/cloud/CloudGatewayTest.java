package dev.inferd.server.cloud;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.UnauthorizedException;
import com.openai.errors.OpenAIServiceException;
import com.openai.errors.PermissionDeniedException;
import com.openai.errors.RateLimitException;
import com.openai.models.chat.completions.ChatCompletion;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.models.Model;
import dev.inferd.server.cloud.auth.Actor;
import dev.inferd.server.cloud.auth.IssuedKey;
import dev.inferd.server.cloud.auth.KeySpec;
import dev.inferd.server.cloud.deploy.CloudDeployment;
import dev.inferd.server.http.ModelRegistry;
import dev.inferd.server.store.Account;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.KeyScopes;
import dev.inferd.server.store.TestDatabases;
import dev.inferd.server.store.UsageFilter;
import dev.inferd.server.store.UsageRecord;
import dev.inferd.server.store.UsageStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code inferd cloud}'s gateway end to end: the official OpenAI client over real HTTP, on SQLite. */
class CloudGatewayTest {

    static final String CHAT = "chat-model";
    static final String OTHER = "org/other-model:Q8_0";
    static final String SLOW = "slow-model";
    static final Actor TEST = new Actor("test", "junit");

    private static final java.util.logging.Logger JETTY_LOG = java.util.logging.Logger.getLogger("org.eclipse.jetty");

    static {
        JETTY_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    private static Database db;
    private static MutableClock clock;
    private static CloudDeployment cloud;
    private static Account acme;
    private static final List<OpenAIClient> clients = new ArrayList<>();

    @BeforeAll
    static void start() {
        db = TestDatabases.open(TestDatabases.SQLITE);
        clock = new MutableClock();
        var registry = new ModelRegistry();
        registry.ready(CHAT, new EchoModel(CHAT));
        registry.ready(OTHER, new EchoModel(OTHER));
        registry.ready(SLOW, new EchoModel(SLOW, 20));
        cloud = CloudDeployment.start("127.0.0.1", 0, db, CloudConfig.empty(), registry, clock);
        acme = cloud.accounts().createAccount("acme", TEST);
    }

    @AfterAll
    static void stop() {
        clients.forEach(OpenAIClient::close);
        cloud.close();
        db.close();
    }

    static String base() {
        return "http://127.0.0.1:" + cloud.port();
    }

    static OpenAIClient client(String key) {
        var client = OpenAIOkHttpClient.builder().baseUrl(base() + "/v1").apiKey(key).maxRetries(0)
                .responseValidation(true).timeout(Duration.ofSeconds(20)).build();
        clients.add(client);
        return client;
    }

    static IssuedKey key(KeySpec spec) {
        return cloud.accounts().createKey(acme.id(), spec, TEST);
    }

    static ChatCompletionCreateParams chat(String model) {
        return ChatCompletionCreateParams.builder().model(model).addUserMessage("Tell me a story").build();
    }

    @Test
    void aValidKeyChatsAndListsModels() {
        var client = client(key(KeySpec.named("valid")).secret());
        ChatCompletion completion = client.chat().completions().create(chat(CHAT));
        assertThat(completion.choices().getFirst().message().content()).hasValue(EchoModel.ANSWER);
        assertThat(client.models().list().data()).extracting(Model::id).containsExactly(CHAT, OTHER, SLOW);
        assertThat(client.models().retrieve(OTHER).id()).isEqualTo(OTHER);
    }

    @Test
    void missingMalformedAndUnknownKeysAre401() throws Exception {
        assertThatThrownBy(() -> client("sk-wrong").chat().completions().create(chat(CHAT)))
                .isInstanceOf(UnauthorizedException.class).hasMessageContaining("Incorrect API key");
        String unknown = "sk-" + "A".repeat(43);
        assertThatThrownBy(() -> client(unknown).models().list()).isInstanceOf(UnauthorizedException.class)
                .satisfies(e -> assertThat(((OpenAIServiceException) e).statusCode()).isEqualTo(401));

        HttpResponse<String> none = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base() + "/v1/models"))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.body()).contains("\"type\":\"authentication_error\"").contains("\"code\":401")
                .contains("\"param\":null");
        assertThat(none.body()).doesNotContain(unknown);
    }

    @Test
    void aKeyOutsideItsScopeIs403AndSeesOnlyItsModels() {
        var scoped = key(new KeySpec("scoped", new KeyScopes(List.of(CHAT), List.of("chat.completions", "models")), null, null));
        var client = client(scoped.secret());
        assertThat(client.chat().completions().create(chat(CHAT)).choices()).hasSize(1);
        assertThatThrownBy(() -> client.chat().completions().create(chat(OTHER)))
                .isInstanceOf(PermissionDeniedException.class).hasMessageContaining("may not use the model");
        assertThatThrownBy(() -> client.models().retrieve(OTHER)).isInstanceOf(PermissionDeniedException.class);
        assertThat(client.models().list().data()).extracting(Model::id).containsExactly(CHAT);
        assertThatThrownBy(() -> client.completions().create(com.openai.models.completions.CompletionCreateParams.builder()
                .model(CHAT).prompt("Once").build()))
                .isInstanceOf(PermissionDeniedException.class).hasMessageContaining("completions endpoint");
    }

    @Test
    void revokedRotatedOutAndExpiredKeysAre401() {
        var revoked = key(KeySpec.named("to-revoke"));
        var client = client(revoked.secret());
        client.models().list();
        cloud.accounts().revokeKey(acme.id(), revoked.key().id(), TEST);
        assertThatThrownBy(() -> client.models().list()).isInstanceOf(UnauthorizedException.class)
                .hasMessageContaining("revoked");

        var rotated = key(KeySpec.named("to-rotate"));
        var fresh = cloud.accounts().rotateKey(acme.id(), rotated.key().id(), Duration.ofMinutes(5), TEST);
        var old = client(rotated.secret());
        assertThat(old.models().list().data()).isNotEmpty(); // within the grace period
        assertThat(client(fresh.secret()).models().list().data()).isNotEmpty();
        clock.advance(Duration.ofMinutes(6));
        assertThatThrownBy(() -> old.models().list()).isInstanceOf(UnauthorizedException.class)
                .hasMessageContaining("rotated");
        assertThat(client(fresh.secret()).models().list().data()).isNotEmpty();

        var immediate = key(KeySpec.named("rotate-now"));
        cloud.accounts().rotateKey(acme.id(), immediate.key().id(), Duration.ZERO, TEST);
        assertThatThrownBy(() -> client(immediate.secret()).models().list()).isInstanceOf(UnauthorizedException.class);

        var expiring = key(new KeySpec("expiring", KeyScopes.EVERYTHING, clock.millis() + 60_000, null));
        var soon = client(expiring.secret());
        assertThat(soon.models().list().data()).isNotEmpty();
        clock.advance(Duration.ofMinutes(2));
        assertThatThrownBy(() -> soon.models().list()).isInstanceOf(UnauthorizedException.class)
                .hasMessageContaining("expired");
    }

    @Test
    void aLoopOverTheLimitGets429AndOneUnderItNone() throws Exception {
        var tight = key(new KeySpec("tight", KeyScopes.EVERYTHING, null, 3));
        var http = HttpClient.newHttpClient();
        int limited = 0;
        HttpResponse<String> first = null;
        HttpResponse<String> rejected = null;
        for (int i = 0; i < 20; i++) {
            var response = http.send(HttpRequest.newBuilder(URI.create(base() + "/v1/models"))
                    .header("Authorization", "Bearer " + tight.secret()).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (first == null) first = response;
            if (response.statusCode() == 429) {
                limited++;
                rejected = response;
            }
        }
        assertThat(limited).isGreaterThan(0);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("x-ratelimit-limit-requests")).hasValue("3");
        assertThat(first.headers().firstValue("x-ratelimit-remaining-requests")).hasValue("2");
        assertThat(first.headers().firstValue("x-ratelimit-reset-requests")).isPresent();
        assertThat(rejected.headers().firstValue("retry-after")).hasValue("1");
        assertThat(rejected.body()).contains("\"type\":\"rate_limit_error\"").contains("\"code\":429");
        var sdk = client(tight.secret());
        int sdkLimited = 0;
        for (int i = 0; i < 20; i++) {
            try {
                sdk.models().list();
            } catch (RateLimitException e) {
                sdkLimited++;
            }
        }
        assertThat(sdkLimited).isGreaterThan(0);

        var roomy = client(key(new KeySpec("roomy", KeyScopes.EVERYTHING, null, 1000)).secret());
        for (int i = 0; i < 30; i++) roomy.models().list();
    }

    @Test
    void usageIsRecordedWithExactTokensForEachRequestIncludingFailures() throws Exception {
        var metered = key(KeySpec.named("metered"));
        var client = client(metered.secret());
        client.chat().completions().create(chat(CHAT));
        client.chat().completions().create(ChatCompletionCreateParams.builder().model(CHAT)
                .addUserMessage("Tell me a longer story please").maxCompletionTokens(2).build());
        assertThatThrownBy(() -> client.chat().completions().create(chat("no-such-model")))
                .isInstanceOf(OpenAIServiceException.class);

        List<UsageRecord> records = awaitRecords(metered.key().id(), 3);
        assertThat(records).hasSize(3); // the test's clock stands still, so they share one time: told apart by content
        UsageRecord failed = records.stream().filter(r -> r.status() != 200).findFirst().orElseThrow();
        assertThat(failed.status()).isEqualTo(404);
        assertThat(failed.model()).isEqualTo("no-such-model");
        UsageRecord shorter = records.stream().filter(r -> r.completionTokens() == 2).findFirst().orElseThrow();
        assertThat(shorter.promptTokens()).isEqualTo(1 + 1 + 6);
        UsageRecord first = records.stream().filter(r -> r.completionTokens() == 3).findFirst().orElseThrow();
        assertThat(first.accountId()).isEqualTo(acme.id());
        assertThat(first.model()).isEqualTo(CHAT);
        assertThat(first.endpoint()).isEqualTo("chat.completions");
        assertThat(first.promptTokens()).isEqualTo(1 + 1 + 4);
        assertThat(first.completionTokens()).isEqualTo(EchoModel.ANSWER_TOKENS);
        assertThat(first.status()).isEqualTo(200);
        assertThat(first.costUsd()).isEqualByComparingTo("0");
        assertThat(cloud.accounts().key(acme.id(), metered.key().id()).lastUsedAt()).isNotNull();
    }

    private static HttpResponse<String> messages(String path, Map<String, String> headers, String body) throws Exception {
        var request = HttpRequest.newBuilder(URI.create(base() + path)).header("Content-Type", "application/json")
                .header("anthropic-version", "2023-06-01").POST(HttpRequest.BodyPublishers.ofString(body));
        headers.forEach(request::header);
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theMessagesApiTakesTheKeyAsXApiKeyOrBearerWithinTheMessagesScopeAndIsMetered() throws Exception {
        var metered = key(KeySpec.named("anthropic client"));
        String body = "{\"model\":\"" + CHAT + "\",\"max_tokens\":50,\"messages\":[{\"role\":\"user\",\"content\":\"Tell me a story\"}]}";
        var viaHeader = messages("/v1/messages?beta=true", Map.of("x-api-key", metered.secret()), body);
        assertThat(viaHeader.statusCode()).as(viaHeader.body()).isEqualTo(200);
        assertThat(viaHeader.body()).contains("\"type\":\"message\"").contains(EchoModel.ANSWER);
        var viaBearer = messages("/v1/messages/count_tokens", Map.of("Authorization", "Bearer " + metered.secret()), body);
        assertThat(viaBearer.statusCode()).as(viaBearer.body()).isEqualTo(200);
        int inputTokens = new com.fasterxml.jackson.databind.ObjectMapper().readTree(viaBearer.body()).get("input_tokens").asInt();
        assertThat(inputTokens).isPositive();

        var none = messages("/v1/messages", Map.of(), body);
        assertThat(none.statusCode()).isEqualTo(401);
        assertThat(none.body()).startsWith("{\"type\":\"error\",\"error\":{\"type\":\"authentication_error\"");
        assertThat(none.headers().firstValue("request-id")).isEqualTo(none.headers().firstValue("x-request-id"));
        var chatOnly = key(new KeySpec("chat only", new KeyScopes(List.of(), List.of("chat.completions")), null, null));
        var outOfScope = messages("/v1/messages", Map.of("x-api-key", chatOnly.secret()), body);
        assertThat(outOfScope.statusCode()).isEqualTo(403);
        assertThat(outOfScope.body()).contains("\"type\":\"permission_error\"").contains("messages endpoint");

        List<UsageRecord> records = awaitRecords(metered.key().id(), 2);
        assertThat(records).extracting(UsageRecord::endpoint).containsOnly("messages");
        UsageRecord generated = records.stream().filter(r -> r.completionTokens() > 0).findFirst().orElseThrow();
        assertThat(generated.promptTokens()).isEqualTo(inputTokens);
        assertThat(generated.completionTokens()).isEqualTo(EchoModel.ANSWER_TOKENS);

        var models = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base() + "/v1/models"))
                .header("x-api-key", metered.secret()).header("anthropic-version", "2023-06-01").GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(models.body()).contains("\"type\":\"model\"").contains("\"has_more\":false");
    }

    /**
     * The key's usage records once there are {@code count}: an answer's record is committed before the answer ends,
     * but the record of a request whose client left is written once the server notices.
     */
    private static List<UsageRecord> awaitRecords(String keyId, int count) throws InterruptedException {
        var usage = new UsageStore(db);
        var filter = UsageFilter.account(acme.id()).key(keyId);
        for (int i = 0; i < 200 && usage.list(filter, 100).size() < count; i++) Thread.sleep(25);
        return usage.list(filter, 100);
    }

    @Test
    void aStreamTheClientLeavesIsRecordedAsCancelledWithTheTokensItUsed() throws Exception {
        var key = key(KeySpec.named("leaver"));
        String body = "{\"model\":\"" + SLOW + "\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"Sing\"}]}";
        try (var socket = new java.net.Socket("127.0.0.1", cloud.port())) {
            var out = socket.getOutputStream();
            out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + key.secret()
                    + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            out.flush();
            var in = new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(),
                    java.nio.charset.StandardCharsets.UTF_8));
            int dataLines = 0;
            while (dataLines < 3) {
                String line = in.readLine();
                assertThat(line).isNotNull();
                if (line.startsWith("data: ")) dataLines++;
            }
        } // the client leaves mid-stream
        UsageRecord record = awaitRecords(key.key().id(), 1).getFirst();
        assertThat(record.status()).isEqualTo(499);
        assertThat(record.model()).isEqualTo(SLOW);
        assertThat(record.promptTokens()).isEqualTo(1 + 1 + 1);
        assertThat(record.completionTokens()).isBetween(2, 999);
    }
}
