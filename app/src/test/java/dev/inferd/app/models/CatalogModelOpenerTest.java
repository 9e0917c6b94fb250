package dev.inferd.app.models;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.OpenAIServiceException;
import com.openai.models.completions.CompletionCreateParams;
import com.openai.models.models.Model;
import dev.inferd.engine.Fixtures;
import dev.inferd.engine.generate.ModelEvent;
import dev.inferd.server.cloud.CloudConfig;
import dev.inferd.server.cloud.auth.Actor;
import dev.inferd.server.cloud.auth.KeySpec;
import dev.inferd.server.cloud.deploy.CloudDeployment;
import dev.inferd.server.pool.PoolLimits;
import dev.inferd.server.store.Database;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code inferd cloud}'s catalog over the real catalog, downloader and engine: the 42 entries listed through the
 * official OpenAI client, and a model downloaded (from a local stand-in for the Hub) and loaded on its first
 * request.
 */
class CatalogModelOpenerTest {

    private static final String OPERATOR = "operator-token-for-tests";
    private static final Instant NOW = Instant.parse("2026-11-20T10:00:00Z");

    /** Held, so that the level set on it is not lost when the logger is collected. */
    private static final java.util.logging.Logger JETTY_LOG = java.util.logging.Logger.getLogger("org.eclipse.jetty");

    static {
        JETTY_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    @TempDir
    Path home;
    FakeHub hub;
    Database db;
    CloudDeployment cloud;
    OpenAIClient client;

    @BeforeEach
    void start() throws IOException {
        hub = new FakeHub();
        db = Database.open("jdbc:sqlite:" + home.resolve("cloud.db"));
    }

    @AfterEach
    void stop() {
        if (client != null) client.close();
        if (cloud != null) cloud.close();
        db.close();
        hub.close();
    }

    private void deploy(PoolLimits limits) {
        var config = ModelsConfig.fromEnvironment(Map.of("INFERD_HOME", home.toString(),
                "INFERD_HF_ENDPOINT", hub.endpoint().toString())::get);
        var resolver = ModelResolver.create(config, new RetryPolicy(1, Duration.ofMillis(1), Duration.ofMillis(1), d -> { }),
                DownloadProgress.NONE);
        var opener = new CatalogModelOpener(resolver, new ModelLoading(0, 1L << 20, 1, 0, 0, null), false,
                ModelEvent.Listener.NONE);
        cloud = CloudDeployment.withCatalog("127.0.0.1", 0, db, new CloudConfig(null, null, OPERATOR, Map.of()),
                Clock.fixed(NOW, ZoneOffset.UTC), new CloudDeployment.Catalog(opener, limits, null));
        var account = cloud.accounts().createAccount("acme", Actor.cli());
        String secret = cloud.accounts().createKey(account.id(), KeySpec.named("k"), Actor.cli()).secret();
        client = OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + cloud.port() + "/v1").apiKey(secret)
                .maxRetries(0).responseValidation(true).timeout(Duration.ofSeconds(60)).build();
    }

    private static PoolLimits limits(long budget) {
        return new PoolLimits(0, budget, Duration.ofSeconds(60), 2, Duration.ofSeconds(30));
    }

    @Test
    void aNewDeploymentListsThe42CatalogModelsWithTheirOwnersAndCreationTime() {
        deploy(limits(1L << 34));
        var catalog = Catalog.builtIn().entries();
        var listed = client.models().list().data();
        assertThat(listed).hasSize(42);
        assertThat(listed).extracting(Model::id).containsExactlyElementsOf(catalog.stream().map(CatalogEntry::slug).toList());
        assertThat(listed).extracting(Model::ownedBy).containsExactlyElementsOf(catalog.stream().map(CatalogEntry::ownedBy).toList());
        assertThat(listed).allSatisfy(m -> assertThat(m.created()).isEqualTo(NOW.getEpochSecond()));
        assertThat(listed).filteredOn(m -> m.id().equals("llama-3.2-1b-instruct")).singleElement()
                .extracting(Model::ownedBy).isEqualTo("meta");
        assertThat(listed).extracting(Model::id).contains("speech-large-v3");
        assertThat(hub.requests).as("listing downloads nothing").isEmpty();
    }

    @Test
    void aListedModelIsDownloadedAndLoadedOnItsFirstRequest() throws IOException {
        Path fixture = Fixtures.require("models/stories260K.gguf");
        var entry = Catalog.builtIn().require("stories-260k");
        hub.serve(entry.hfRepo(), entry.revision(), entry.file(), Files.readAllBytes(fixture));
        deploy(limits(1L << 34));
        assertThat(cloud.pool().loaded()).isEmpty();

        var completion = client.completions().create(CompletionCreateParams.builder().model("stories-260k")
                .prompt("Once upon a time").maxTokens(5).temperature(0.0).build());

        assertThat(completion.choices().getFirst().text()).isNotEmpty();
        assertThat(cloud.pool().loaded()).containsExactly("stories-260k");
        assertThat(Files.list(home.resolve("models")).findAny()).as("downloaded into INFERD_HOME/models").isPresent();
        assertThat(hub.hubRequests()).hasSize(1);
        client.completions().create(CompletionCreateParams.builder().model("stories-260k").prompt("Once").maxTokens(2).build());
        assertThat(hub.hubRequests()).as("loaded once").hasSize(1);
        assertThat(cloud.pool().heldBytes()).isGreaterThanOrEqualTo(Files.size(fixture));
    }

    @Test
    void aModelLargerThanTheBudgetIsRefusedBeforeAnythingIsDownloaded() {
        deploy(limits(100_000));
        assertThatThrownBy(() -> client.completions().create(CompletionCreateParams.builder().model("llama-3.2-1b-instruct")
                .prompt("Once").maxTokens(2).build()))
                .isInstanceOf(OpenAIServiceException.class)
                .satisfies(e -> assertThat(((OpenAIServiceException) e).statusCode()).isEqualTo(503))
                .hasMessageContaining("cannot be loaded on this server: it needs about 808743040 bytes") // its file and 1 MiB of KV cache
                .hasMessageContaining("memory budget is 100000 bytes");
        assertThat(hub.requests).isEmpty();
    }

    @Test
    void theAdminApiAddsAModelFileAndRefusesAnUnknownSlug() throws Exception {
        Path fixture = Fixtures.require("models/stories260K.gguf");
        deploy(limits(1L << 34));
        var http = HttpClient.newHttpClient();
        var added = http.send(admin("{\"id\": \"tiny-stories\", \"file\": \"" + fixture.toAbsolutePath() + "\", \"owned_by\": \"karpathy\"}"),
                HttpResponse.BodyHandlers.ofString());
        assertThat(added.statusCode()).as(added.body()).isEqualTo(201);
        assertThat(client.models().retrieve("tiny-stories").ownedBy()).isEqualTo("karpathy");
        assertThat(client.completions().create(CompletionCreateParams.builder().model("tiny-stories").prompt("Once")
                .maxTokens(2).build()).choices()).hasSize(1);

        var unknown = http.send(admin("{\"id\": \"llama-9\"}"), HttpResponse.BodyHandlers.ofString());
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(unknown.body()).contains("llama-9").contains("invalid_request_error");
    }

    private HttpRequest admin(String body) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + cloud.port() + "/admin/v1/models"))
                .header("Authorization", "Bearer " + OPERATOR).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    }
}
