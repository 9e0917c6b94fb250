package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A final assistant message is a prefill, on chat completions and on the Messages API alike: the prompt ends with
 * its text (no end of turn, no new generation prompt), the reply holds only what follows it, and the
 * combinations that cannot continue a text are refused.
 */
class PrefillWireTest {
    /** ChatML-like: each turn ends with {@code <|end|>}; the generation prompt opens an assistant turn. */
    private static final String TEMPLATE = "{% for m in messages %}<|{{ m.role }}|>\n{{ m.content | trim }}<|end|>\n"
            + "{% endfor %}{% if add_generation_prompt %}<|assistant|>\n{% endif %}";
    private static final String SCHEMA = "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}";
    private static final String TOOLS = "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
            + "\"parameters\":" + SCHEMA + "}}]";
    private static final String ANTHROPIC_TOOLS = "\"tools\":[{\"name\":\"get_weather\",\"input_schema\":" + SCHEMA + "}]";

    private final TestServer server = new TestServer();

    @BeforeEach
    void template() {
        server.oddModel.template(TEMPLATE).text("\"name\": \"Ada\"}");
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private static String chat(String lastAssistant, String extra) {
        return "{\"model\":\"" + TestServer.ODD_MODEL + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Name as JSON\"},"
                + "{\"role\":\"assistant\",\"content\":" + lastAssistant + "}]" + (extra.isEmpty() ? "" : "," + extra) + "}";
    }

    private static String messages(String lastAssistant, String extra) {
        return "{\"model\":\"" + TestServer.ODD_MODEL + "\",\"max_tokens\":2000,\"messages\":[{\"role\":\"user\",\"content\":\"Name as JSON\"},"
                + "{\"role\":\"assistant\",\"content\":" + lastAssistant + "}]" + (extra.isEmpty() ? "" : "," + extra) + "}";
    }

    @Test
    void aChatPrefillIsContinuedAndLeftOutOfTheReply() throws Exception {
        HttpResponse<String> response = server.post("/v1/chat/completions", chat("\"{\"", ""));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(server.oddModel.lastRendered).isEqualTo("<|user|>\nName as JSON<|end|>\n<|assistant|>\n{");
        JsonNode message = TestServer.json(response).at("/choices/0/message");
        assertThat(message.get("content").asText()).isEqualTo("\"name\": \"Ada\"}");
        // the prompt's tokens: BOS and the rendered text's words, the prefill among them
        assertThat(TestServer.json(response).at("/usage/prompt_tokens").asInt()).isEqualTo(1 + 6);
    }

    @Test
    void aMessagesPrefillIsContinuedAndLeftOutOfTheReply() throws Exception {
        for (String last : new String[] {"\"{\"", "[{\"type\":\"text\",\"text\":\"{\"}]"}) {
            HttpResponse<String> response = server.post("/v1/messages", messages(last, ""));
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            assertThat(server.oddModel.lastRendered).isEqualTo("<|user|>\nName as JSON<|end|>\n<|assistant|>\n{");
            JsonNode content = TestServer.json(response).get("content");
            assertThat(content).hasSize(1);
            assertThat(content.get(0).get("text").asText()).isEqualTo("\"name\": \"Ada\"}");
        }
        String stream = server.post("/v1/messages", messages("\"{\"", "\"stream\":true")).body();
        assertThat(stream).contains("\"text\":\" \\\"Ada\\\"}\"").doesNotContain("\"text\":\"{");
    }

    @Test
    void aPrefillKeepsTheTextTheTemplateWouldTrim() throws Exception {
        server.post("/v1/chat/completions", chat("\"Dear Ada,\\n\\n\"", ""));
        assertThat(server.oddModel.lastRendered).endsWith("<|assistant|>\nDear Ada,\n\n");
    }

    @Test
    void anEmptyFinalAssistantMessageIsNoPrefill() throws Exception {
        server.post("/v1/chat/completions", chat("\"\"", ""));
        assertThat(server.oddModel.lastMessages).hasSize(1);
        server.post("/v1/messages", messages("\"\"", ""));
        assertThat(server.oddModel.lastRendered).isEqualTo("<|user|>\nName as JSON<|end|>\n<|assistant|>\n");
    }

    @Test
    void aPrefillCanComeWithToolsItDoesNotForce() throws Exception {
        HttpResponse<String> response = server.post("/v1/chat/completions", chat("\"{\"", TOOLS));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        assertThat(server.oddModel.lastRendered).endsWith("<|assistant|>\n{");
    }

    @Test
    void combinationsThatCannotContinueATextAreRefused() throws Exception {
        assertRefused(server.post("/v1/chat/completions", chat("\"{\"", TOOLS + ",\"tool_choice\":\"required\"")),
                "tool_choice");
        assertRefused(server.post("/v1/chat/completions", chat("\"{\"", "\"response_format\":{\"type\":\"json_object\"}")),
                "response_format");
        assertRefused(server.post("/v1/messages", messages("\"{\"", ANTHROPIC_TOOLS + ",\"tool_choice\":{\"type\":\"any\"}")),
                "tool_choice");
        assertRefused(server.post("/v1/messages", messages("\"{\"", "\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":1024}")),
                "thinking");
        assertRefused(server.post("/v1/messages", messages("\"{\"", "\"thinking\":{\"type\":\"adaptive\"}")), "thinking");
        assertRefused(server.post("/v1/messages", messages("\"Dear \"", "")), "trailing whitespace");
    }

    private static void assertRefused(HttpResponse<String> response, String says) throws Exception {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
        JsonNode error = TestServer.json(response).get("error");
        assertThat(error.get("type").asText()).isEqualTo("invalid_request_error");
        assertThat(error.get("message").asText()).contains(says);
    }
}
