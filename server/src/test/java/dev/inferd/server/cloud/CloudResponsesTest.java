package dev.inferd.server.cloud;

import com.openai.client.OpenAIClient;
import com.openai.client.okhttp.OpenAIOkHttpClient;
import com.openai.errors.NotFoundException;
import com.openai.errors.PermissionDeniedException;
import com.openai.models.responses.Response;
import com.openai.models.responses.ResponseCreateParams;
import dev.inferd.server.cloud.auth.Actor;
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

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code /v1/responses} behind the hosted gateway: the {@code responses} scope, usage records, and responses
 * kept in the database per account.
 */
class CloudResponsesTest {

    private static final String MODEL = "chat-model";
    private static final Actor TEST = new Actor("test", "junit");

    private static Database db;
    private static CloudDeployment cloud;
    private static Account acme;
    private static Account globex;
    private static final List<OpenAIClient> clients = new ArrayList<>();

    @BeforeAll
    static void start() {
        db = TestDatabases.open(TestDatabases.SQLITE);
        var registry = new ModelRegistry();
        registry.ready(MODEL, new EchoModel(MODEL));
        cloud = CloudDeployment.start("127.0.0.1", 0, db, CloudConfig.empty(), registry, new MutableClock());
        acme = cloud.accounts().createAccount("acme", TEST);
        globex = cloud.accounts().createAccount("globex", TEST);
    }

    @AfterAll
    static void stop() {
        clients.forEach(OpenAIClient::close);
        cloud.close();
        db.close();
    }

    private static OpenAIClient client(Account account, KeyScopes scopes) {
        String secret = cloud.accounts().createKey(account.id(), new KeySpec("k", scopes, null, null), TEST).secret();
        var client = OpenAIOkHttpClient.builder().baseUrl("http://127.0.0.1:" + cloud.port() + "/v1").apiKey(secret)
                .maxRetries(0).responseValidation(true).timeout(Duration.ofSeconds(20)).build();
        clients.add(client);
        return client;
    }

    private static ResponseCreateParams hello() {
        return ResponseCreateParams.builder().model(MODEL).input("Tell me a story").build();
    }

    @Test
    void aResponsesKeyCreatesKeepsAndIsMetered() throws Exception {
        var scopes = new KeyScopes(List.of(MODEL), List.of("responses"));
        OpenAIClient client = client(acme, scopes);
        Response response = client.responses().create(hello());
        assertThat(client.responses().retrieve(response.id()).id()).isEqualTo(response.id());
        assertThat(client.responses().inputItems().list(response.id()).data()).hasSize(1);
        Response next = client.responses().create(ResponseCreateParams.builder().model(MODEL).input("More")
                .previousResponseId(response.id()).build());
        assertThat(next.usage().orElseThrow().inputTokens()).isGreaterThan(response.usage().orElseThrow().inputTokens());

        var usage = new UsageStore(db);
        List<UsageRecord> records = List.of();
        for (int i = 0; i < 200 && records.stream().filter(r -> r.completionTokens() > 0).count() < 2; i++) {
            Thread.sleep(25);
            records = usage.list(UsageFilter.account(acme.id()), 100);
        }
        assertThat(records).extracting(UsageRecord::endpoint).containsOnly("responses");
        assertThat(records).filteredOn(r -> r.completionTokens() == EchoModel.ANSWER_TOKENS).hasSize(2);
    }

    @Test
    void anotherAccountCannotSeeAResponse() {
        Response response = client(acme, KeyScopes.EVERYTHING).responses().create(hello());
        OpenAIClient other = client(globex, KeyScopes.EVERYTHING);
        assertThatThrownBy(() -> other.responses().retrieve(response.id())).isInstanceOf(NotFoundException.class);
        assertThatThrownBy(() -> other.responses().delete(response.id())).isInstanceOf(NotFoundException.class);
        client(acme, KeyScopes.EVERYTHING).responses().delete(response.id());
    }

    @Test
    void aChatOnlyKeyMayNotUseResponses() {
        OpenAIClient chatOnly = client(acme, new KeyScopes(List.of(MODEL), List.of("chat.completions")));
        assertThatThrownBy(() -> chatOnly.responses().create(hello())).isInstanceOf(PermissionDeniedException.class)
                .hasMessageContaining("responses endpoint");
        assertThatThrownBy(() -> chatOnly.responses().retrieve("resp_x")).isInstanceOf(PermissionDeniedException.class);
    }
}
