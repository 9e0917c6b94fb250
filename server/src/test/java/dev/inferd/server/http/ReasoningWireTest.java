package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** A thinking model's {@code <think>} text travels in {@code reasoning_content}, never in {@code content}. */
class ReasoningWireTest {
    private static final String THINKING_TEMPLATE = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}"
            + "{% if add_generation_prompt %}<|assistant|>{% endif %}{# replies may open <think> #}";
    /** A template whose generation prompt opens the thinking block itself, as DeepSeek-R1's does. */
    private static final String OPENING_TEMPLATE = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}"
            + "{% if add_generation_prompt %}<|assistant|><think>\n{% endif %}";

    private final TestServer server = new TestServer();

    @AfterEach
    void stop() {
        server.close();
    }

    /** On the model with the larger context (tools take room). */
    private String oddChat(String extra) {
        return chat(extra).replace("fake-model", TestServer.ODD_MODEL);
    }

    private String chat(String extra) {
        return "{\"model\":\"fake-model\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]" + extra + "}";
    }

    @Test
    void thinkingIsReasoningContent() throws Exception {
        server.model.template(THINKING_TEMPLATE).text("<think>Let me see.</think> Hello there");
        JsonNode message = TestServer.json(server.post("/v1/chat/completions", chat(""))).get("choices").get(0).get("message");
        assertThat(message.get("reasoning_content").asText()).isEqualTo("Let me see.");
        assertThat(message.get("content").asText()).doesNotContain("think").contains("Hello there");
    }

    /** Streamed, the thinking comes as reasoning deltas, whether the reply opens the block or the prompt did. */
    @ParameterizedTest(name = "the prompt opens the block: {0}")
    @CsvSource(delimiter = '|', value = {
            "false|<think>Let me see.</think> Hello there",
            "true|Let me see.</think> Hello there"})
    void streamedThinkingIsReasoningDeltas(boolean promptOpensTheBlock, String reply) throws Exception {
        server.oddModel.template(promptOpensTheBlock ? OPENING_TEMPLATE : THINKING_TEMPLATE).text(reply);
        String body = server.post("/v1/chat/completions", oddChat(",\"stream\":true")).body();
        StringBuilder reasoning = new StringBuilder();
        StringBuilder content = new StringBuilder();
        for (String line : body.split("\n")) {
            if (!line.startsWith("data: {")) continue;
            JsonNode choices = TestServer.MAPPER.readTree(line.substring(6)).get("choices");
            if (choices.isEmpty()) continue;
            JsonNode delta = choices.get(0).get("delta");
            if (delta.has("reasoning_content")) reasoning.append(delta.get("reasoning_content").asText());
            if (delta.has("content") && !delta.get("content").isNull()) content.append(delta.get("content").asText());
        }
        assertThat(reasoning.toString()).isEqualTo("Let me see.");
        assertThat(content.toString()).isEqualTo("Hello there");
    }

    @Test
    void theRequestCanKeepThinkingInContent() throws Exception {
        server.model.template(THINKING_TEMPLATE).text("<think>Let me see.</think> Hello there");
        JsonNode message = TestServer.json(server.post("/v1/chat/completions", chat(",\"separate_reasoning\":false")))
                .get("choices").get(0).get("message");
        assertThat(message.has("reasoning_content")).isFalse();
        assertThat(message.get("content").asText()).contains("<think>Let me see.</think>");
    }

    /**
     * The generation prompt opened {@code <think>}, so the reply starts inside it, whatever the request carries:
     * plain turns (no tools, no template variables), tools, or template variables.
     */
    @Test
    void aPromptThatOpensThinkingStartsTheReplyInIt() throws Exception {
        server.oddModel.template(OPENING_TEMPLATE).text("Let me see.</think> Hello there");
        String tool = ",\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\"}}]";
        for (String extra : new String[] {"", tool, ",\"chat_template_kwargs\":{\"date_string\":\"today\"}"}) {
            JsonNode message = TestServer.json(server.post("/v1/chat/completions", oddChat(extra)))
                    .get("choices").get(0).get("message");
            assertThat(message.get("reasoning_content").asText()).as(extra).isEqualTo("Let me see.");
            assertThat(message.get("content").asText()).as(extra).isEqualTo("Hello there");
        }
    }
}
