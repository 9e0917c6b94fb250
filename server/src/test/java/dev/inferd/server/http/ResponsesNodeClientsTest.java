package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Node clients that speak {@code /v1/responses} complete a request: the OpenAI SDK's
 * {@code responses.create} and {@code responses.stream}, the Vercel AI SDK's OpenAI provider and the OpenAI
 * Agents SDK (test resource node/responses-clients.mjs).
 */
@Tag("slow")
class ResponsesNodeClientsTest {

    private static TestServer server;

    @BeforeAll
    static void start() {
        server = new TestServer();
        server.model.template(null);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void everyClientCompletesARequest() throws Exception {
        NodeClients clients = NodeClients.get();
        List<String> lines = clients.run("responses-clients.mjs", Duration.ofMinutes(3), server.base() + "/v1",
                TestServer.MODEL);
        Map<String, JsonNode> results = new LinkedHashMap<>();
        for (String line : lines) {
            if (!line.startsWith("{")) continue;
            JsonNode result = TestServer.MAPPER.readTree(line);
            results.put(result.get("client").asText(), result);
        }
        assertThat(results.keySet()).containsExactly("openai.responses.create", "openai.responses.stream",
                "ai.generateText", "ai.streamText", "@openai/agents.run");
        results.forEach((client, result) -> {
            assertThat(result.get("ok").asBoolean()).as(client + ": " + result.path("error").asText()).isTrue();
            assertThat(result.get("text").asText()).as(client).isEqualTo(FakeTextGenerator.TEXT);
        });
    }
}
