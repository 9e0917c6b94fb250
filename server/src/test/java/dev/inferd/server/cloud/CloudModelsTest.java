package dev.inferd.server.cloud;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.NotFoundException;
import com.openai.errors.OpenAIServiceException;
import com.openai.models.chat.completions.ChatCompletionCreateParams;
import com.openai.models.models.Model;
import dev.inferd.server.cloud.auth.Actor;
import dev.inferd.server.cloud.auth.KeySpec;
import dev.inferd.server.cloud.catalog.ModelSpec;
import dev.inferd.server.cloud.deploy.CloudDeployment;
import dev.inferd.server.http.MultipartForm;
import dev.inferd.server.pool.PoolLimits;
import dev.inferd.server.store.Database;
import dev.inferd.server.store.KeyScopes;
import dev.inferd.server.store.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import dev.inferd.engine.Fixtures;
import dev.inferd.engine.gguf.GGMLType;
import dev.inferd.speech.whisper.SyntheticWhisper;
import dev.inferd.speech.whisper.WhisperShape;
import java.nio.file.Files;
import java.nio.file.Path;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The hosted deployment's model catalog end to end: the list of {@code GET /v1/models} over the official OpenAI
 * client, models added and removed through the admin API and a config reload, loaded on a request's demand
 * within a budget.
 */
class CloudModelsTest {

    private static final String OPERATOR = "operator-token-for-tests";
    private static final Actor TEST = new Actor("test", "junit");
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final PoolLimits ROOMY = new PoolLimits(0, 1L << 40, Duration.ofSeconds(20), 2, Duration.ofSeconds(30));

    /** Held, so that the level set on it is not lost when the logger is collected. */
    private static final java.util.logging.Logger JETTY_LOG = java.util.logging.Logger.getLogger("org.eclipse.jetty");

    static {
        JETTY_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    private final MutableClock clock = new MutableClock();
    private final FakeOpener opener = new FakeOpener();
    private final HttpClient http = HttpClient.newHttpClient();
    private final List<AutoCloseable> open = new ArrayList<>();
    private Database db;
    private CloudDeployment cloud;
    private String secret;

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : open.reversed()) c.close();
    }

    private void deploy(PoolLimits limits) {
        deploy(limits, null, null);
    }

    private void deploy(PoolLimits limits, List<ModelSpec> configured, AtomicReference<List<ModelSpec>> reread) {
        if (db == null) {
            db = TestDatabases.open(TestDatabases.SQLITE);
            open.add(db);
        }
        var config = new CloudConfig(null, null, OPERATOR, Map.of(), configured);
        cloud = CloudDeployment.withCatalog("127.0.0.1", 0, db, config, clock,
                new CloudDeployment.Catalog(opener, limits, reread == null ? null : reread::get));
        open.add(cloud);
        if (secret == null) {
            var account = cloud.accounts().createAccount("acme", TEST);
            secret = cloud.accounts().createKey(account.id(), KeySpec.named("k"), TEST).secret();
        }
    }

    private OpenAIClient client(String key) {
        var client = OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + cloud.port() + "/v1").apiKey(key)
                .maxRetries(0).responseValidation(true).timeout(Duration.ofSeconds(30)).build();
        open.add(client::close);
        return client;
    }

    private static ChatCompletionCreateParams chat(String model) {
        return ChatCompletionCreateParams.builder().model(model).addUserMessage("Tell me a story").build();
    }

    @Test
    void theListIsTheCatalogOf42WithOwnersAndCreationTimes() {
        deploy(ROOMY);
        List<Model> models = client(secret).models().list().data();
        assertThat(models).hasSize(42);
        assertThat(models.getFirst().id()).isEqualTo("model-01");
        assertThat(models.getFirst().ownedBy()).isEqualTo("org-2");
        assertThat(models).allSatisfy(m -> assertThat(m.created()).isEqualTo(clock.millis() / 1000));
        assertThat(client(secret).models().retrieve("model-42").ownedBy()).isEqualTo("org-1");
        assertThatThrownBy(() -> client(secret).models().retrieve("model-43")).isInstanceOf(NotFoundException.class);
        assertThat(opener.loads).as("listing loads nothing").isEmpty();

        var scoped = cloud.accounts().createKey(cloud.accounts().requireAccount("acme").id(),
                new KeySpec("scoped", new KeyScopes(List.of("model-03", "model-04"), List.of()), null, null), TEST);
        assertThat(client(scoped.secret()).models().list().data()).extracting(Model::id).containsExactly("model-03", "model-04");
    }

    @Test
    void modelsAddedAndRemovedThroughTheAdminApiShowAtOnceAndOutlastARestart() throws Exception {
        deploy(ROOMY);
        var client = client(secret);
        var added = admin("POST", "/models", "{\"id\": \"extra-1\", \"owned_by\": \"acme-labs\"}");
        assertThat(added.statusCode()).as(added.body()).isEqualTo(201);
        assertThat(JSON.readTree(added.body()).path("owned_by").asText()).isEqualTo("acme-labs");
        assertThat(client.models().list().data()).extracting(Model::id).hasSize(43).endsWith("extra-1");
        assertThat(client.chat().completions().create(chat("extra-1")).choices().getFirst().message().content())
                .hasValue(EchoModel.ANSWER);

        var removed = admin("DELETE", "/models/model-05", null);
        assertThat(removed.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(removed.body()).path("deleted").asBoolean()).isTrue();
        assertThat(client.models().list().data()).extracting(Model::id).hasSize(42).doesNotContain("model-05");
        assertThatThrownBy(() -> client.chat().completions().create(chat("model-05"))).isInstanceOf(NotFoundException.class);

        assertThat(admin("POST", "/models", "{\"id\": \"extra-1\"}").statusCode()).isEqualTo(409);
        var unknown = admin("POST", "/models", "{\"id\": \"no-such-model\"}");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(unknown.body()).contains("unknown model 'no-such-model'");
        assertThat(admin("DELETE", "/models/model-05", null).statusCode()).isEqualTo(404);
        var listed = JSON.readTree(admin("GET", "/models", null).body()).path("data");
        assertThat(listed.size()).isEqualTo(42);
        JsonNode extra = listed.get(41);
        assertThat(extra.path("id").asText()).isEqualTo("extra-1");
        assertThat(extra.path("loaded").asBoolean()).isTrue();
        assertThat(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cloud.port() + "/admin/v1/models")).GET()
                .build(), HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);

        cloud.close();
        open.remove(cloud);
        deploy(ROOMY);
        assertThat(client(secret).models().list().data()).extracting(Model::id).hasSize(42)
                .doesNotContain("model-05").endsWith("extra-1");
    }

    @Test
    void theConfigFilesModelsAreTheCatalogAtStartAndOnReload() throws Exception {
        var reread = new AtomicReference<>(List.of(ModelSpec.slug("model-01"), new ModelSpec("mine", "/models/mine.gguf", "me")));
        deploy(ROOMY, reread.get(), reread);
        var client = client(secret);
        assertThat(client.models().list().data()).extracting(Model::id, Model::ownedBy)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("model-01", "org-2"),
                        org.assertj.core.groups.Tuple.tuple("mine", "me"));
        client.chat().completions().create(chat("mine"));

        reread.set(List.of(ModelSpec.slug("model-01"), ModelSpec.slug("extra-2")));
        var reloaded = admin("POST", "/reload", null);
        assertThat(reloaded.statusCode()).as(reloaded.body()).isEqualTo(200);
        assertThat(JSON.readTree(reloaded.body()).path("removed").get(0).asText()).isEqualTo("mine");
        assertThat(client.models().list().data()).extracting(Model::id).containsExactly("model-01", "extra-2");
        assertThat(opener.opened.get("mine").closed).as("a model taken off the list is unloaded").isTrue();
    }

    @Test
    void aRequestLoadsItsModelOnceOnFirstUse() {
        deploy(ROOMY);
        var client = client(secret);
        assertThat(cloud.pool().loaded()).isEmpty();
        assertThat(client.chat().completions().create(chat("model-07")).choices().getFirst().message().content())
                .hasValue(EchoModel.ANSWER);
        client.chat().completions().create(chat("model-07"));
        assertThat(opener.loads).containsExactly("model-07");
        assertThat(cloud.pool().loaded()).containsExactly("model-07");
    }

    @Test
    void whileAModelLoadsRequestsWaitABoundedTimeThenGet503WithRetryAfter() throws Exception {
        deploy(new PoolLimits(0, 1L << 40, Duration.ofMillis(300), 3, Duration.ofSeconds(30)));
        var gate = opener.gate("model-08");
        HttpResponse<String> waiting = chatOverHttp("model-08");
        assertThat(waiting.statusCode()).isEqualTo(503);
        assertThat(waiting.headers().firstValue("retry-after")).hasValue("3");
        JsonNode error = JSON.readTree(waiting.body()).path("error");
        assertThat(error.path("type").asText()).isEqualTo("service_unavailable_error");
        assertThat(error.path("code").asInt()).isEqualTo(503);
        assertThat(error.path("message").asText()).contains("model-08").contains("loading");
        assertThat(cloud.pool().loading("model-08")).isTrue();

        gate.countDown();
        assertThat(client(secret).chat().completions().create(chat("model-08")).choices()).hasSize(1);
        assertThat(opener.loads).containsExactly("model-08");
    }

    @Test
    void withABudgetOfOneModelTheLeastRecentlyUsedIdleOneIsUnloaded() {
        deploy(ROOMY.withMaxLoaded(1));
        var client = client(secret);
        client.chat().completions().create(chat("model-01"));
        client.chat().completions().create(chat("model-02"));
        assertThat(cloud.pool().loaded()).containsExactly("model-02");
        assertThat(opener.opened.get("model-01").closed).isTrue();
        assertThat(opener.opened.get("model-02").closed).isFalse();
    }

    @Test
    void aModelWithARequestInFlightIsNotUnloaded() throws Exception {
        deploy(ROOMY.withMaxLoaded(1));
        opener.slow.add("model-01");
        var client = client(secret);
        try (var stream = client.chat().completions().createStreaming(chat("model-01"))) {
            var chunks = stream.stream().iterator();
            assertThat(chunks.hasNext()).isTrue();
            chunks.next();
            assertThat(cloud.pool().inFlight("model-01")).isEqualTo(1);

            HttpResponse<String> noRoom = chatOverHttp("model-02");
            assertThat(noRoom.statusCode()).isEqualTo(503);
            assertThat(noRoom.headers().firstValue("retry-after")).hasValue("2");
            JsonNode error = JSON.readTree(noRoom.body()).path("error");
            assertThat(error.path("type").asText()).isEqualTo("service_unavailable_error");
            assertThat(error.path("message").asText()).contains("the models loaded or loading are all in use");
            assertThat(opener.loads).containsExactly("model-01");
            assertThat(opener.opened.get("model-01").closed).isFalse();
        }
        // the stream closed: once the server sees it, model-01 is idle and makes way
        waitFor(() -> cloud.pool().inFlight("model-01") == 0);
        assertThat(client.chat().completions().create(chat("model-02")).choices()).hasSize(1);
        assertThat(opener.opened.get("model-01").closed).isTrue();
        assertThat(cloud.pool().loaded()).containsExactly("model-02");
    }

    @Test
    void aModelLargerThanTheBudgetIsAClearErrorAndNothingIsLoaded() throws Exception {
        deploy(ROOMY.withMemoryBudget(5000));
        opener.sizes.put("model-09", 10_000L);
        assertThatThrownBy(() -> client(secret).chat().completions().create(chat("model-09")))
                .isInstanceOf(OpenAIServiceException.class)
                .satisfies(e -> assertThat(((OpenAIServiceException) e).statusCode()).isEqualTo(503))
                .hasMessageContaining("cannot be loaded on this server: it needs about 10000 bytes and the server's memory budget is 5000 bytes");
        HttpResponse<String> raw = chatOverHttp("model-09");
        assertThat(raw.headers().firstValue("x-should-retry")).hasValue("false");
        assertThat(raw.headers().firstValue("retry-after")).isEmpty();
        assertThat(opener.loads).isEmpty();
    }

    /** Slow: the random model fills its window with tokens. */
    @Test
    @Tag("slow")
    void aSpeechModelOfTheCatalogLoadsOnItsFirstTranscription(@TempDir Path tmp) throws Exception {
        byte[] wav = Files.readAllBytes(Fixtures.require("audio/LDC93S1.wav"));
        var shape = new WhisperShape("whisper-micro", 51865, 64, 2, 1, 1, 80);
        Path file = new SyntheticWhisper.Spec(shape, GGMLType.F16, 3, 1.0f).write(tmp.resolve("micro.bin"));
        deploy(ROOMY);
        assertThat(admin("POST", "/models", "{\"id\": \"speech-micro\", \"file\": \"" + file + "\"}").statusCode()).isEqualTo(201);

        HttpResponse<String> asChat = chatOverHttp("speech-micro");
        assertThat(asChat.statusCode()).isEqualTo(400);
        assertThat(asChat.body()).contains("speech-to-text model");
        assertThat(cloud.pool().loaded()).isEmpty();

        byte[] body = MultipartForm.body(Map.of("model", "speech-micro", "response_format", "text"), "clip.wav", "audio/wav", wav);
        var transcribed = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cloud.port() + "/v1/audio/transcriptions"))
                .header("Authorization", "Bearer " + secret).header("Content-Type", MultipartForm.CONTENT_TYPE)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(transcribed.statusCode()).as(transcribed.body()).isEqualTo(200);
        assertThat(cloud.pool().loaded()).containsExactly("speech-micro");
    }

    private HttpResponse<String> chatOverHttp(String model) throws Exception {
        String body = "{\"model\": \"" + model + "\", \"messages\": [{\"role\": \"user\", \"content\": \"Hi\"}]}";
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cloud.port() + "/v1/chat/completions"))
                .header("Authorization", "Bearer " + secret).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> admin(String method, String path, String body) throws Exception {
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cloud.port() + "/admin/v1" + path))
                .header("Authorization", "Bearer " + OPERATOR).header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void waitFor(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("condition not met within 20 s");
            Thread.sleep(10);
        }
    }
}
