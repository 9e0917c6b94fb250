package dev.inferd.engine.chat;

import dev.inferd.engine.Fixtures;
import dev.inferd.engine.chat.jinja.TemplateException;
import dev.inferd.engine.chat.jinja.TemplateRaisedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The 17 real chat templates of the fixtures, rendered with the conversation system + user +
 * assistant + user and a generation prompt. Exact expectations were written by reading each
 * template, not by running a reference renderer.
 */
class ChatTemplateFixturesTest {
    /** strftime_now reads this: 7 March 2025. */
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2025-03-07T10:00:00Z"), ZoneOffset.UTC);

    private static final List<Map<String, Object>> CONVERSATION = List.of(
            message("system", "You are a helpful assistant."),
            message("user", "Hello!"),
            message("assistant", "Hi there, how can I help?"),
            message("user", "What is 2+2?"));

    private static Map<String, Object> message(String role, String content) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("role", role);
        m.put("content", content);
        return m;
    }

    private static ChatTemplate template(String file, String bos, String eos) throws IOException {
        String source = Files.readString(Fixtures.require("chat-templates/" + file));
        return ChatTemplates.of(source, bos, eos, CLOCK);
    }

    private static String render(String file, String bos, String eos, Map<String, Object> extra) throws IOException {
        return template(file, bos, eos).render(CONVERSATION, true, extra);
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "CohereForAI-c4ai-command-r-plus-tool_use.jinja",
            "CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja",
            "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja",
            "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja",
            "Qwen-Qwen2.5-7B-Instruct.jinja",
            "deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja",
            "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja",
            "llama-cpp-deepseek-r1.jinja",
            "meetkai-functionary-medium-v3.1.jinja",
            "meetkai-functionary-medium-v3.2.jinja",
            "meta-llama-Llama-3.1-8B-Instruct.jinja",
            "meta-llama-Llama-3.2-3B-Instruct.jinja",
            "meta-llama-Llama-3.3-70B-Instruct.jinja",
            "microsoft-Phi-3.5-mini-instruct.jinja",
            "mistralai-Mistral-Nemo-Instruct-2407.jinja"})
    void rendersTheConversation(String file) throws IOException {
        String out = render(file, "<s>", "</s>", Map.of());
        assertThat(out).contains("Hello!", "Hi there, how can I help?", "What is 2+2?");
        assertThat(out.indexOf("Hello!")).isLessThan(out.indexOf("What is 2+2?"));
    }

    @Test
    void gemma2RejectsASystemMessageWithItsOwnErrorAndRendersAnAlternatingConversation() throws IOException {
        ChatTemplate gemma = template("google-gemma-2-2b-it.jinja", "<bos>", "<eos>");
        assertThatThrownBy(() -> gemma.render(CONVERSATION, true, Map.of()))
                .isInstanceOf(TemplateRaisedException.class)
                .hasMessage("System role not supported");
        assertThatThrownBy(() -> gemma.render(List.of(message("user", "a"), message("user", "b")), true, Map.of()))
                .isInstanceOf(TemplateRaisedException.class)
                .hasMessage("Conversation roles must alternate user/assistant/user/assistant/...");

        String out = gemma.render(CONVERSATION.subList(1, 4), true, Map.of());
        assertThat(out).isEqualTo("""
                <bos><start_of_turn>user
                Hello!<end_of_turn>
                <start_of_turn>model
                Hi there, how can I help?<end_of_turn>
                <start_of_turn>user
                What is 2+2?<end_of_turn>
                <start_of_turn>model
                """);
    }

    @Test
    void firefunctionNeedsItsFunctionsAndDatetimeVariables() throws IOException {
        String file = "fireworks-ai-llama-3-firefunction-v2.jinja";
        Fixtures.require("chat-templates/" + file); // skip here, not inside assertThatThrownBy
        assertThatThrownBy(() -> render(file, "<|begin_of_text|>", "<|eot_id|>", Map.of()))
                .isInstanceOf(TemplateException.class)
                .hasMessageContaining("'functions' is undefined");

        String out = render(file, "<|begin_of_text|>", "<|eot_id|>", Map.of("functions", "[]", "datetime", "2025-03-07"));
        assertThat(out)
                .startsWith("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nYou are a helpful assistant.\n"
                        + "In addition to plain text responses, you can chose to call one or more of the provided functions.")
                .contains("Available functions as JSON spec:\n[]\nToday is 2025-03-07.<|eot_id|>")
                .endsWith("<|start_header_id|>user<|end_header_id|>\n\nWhat is 2+2?<|eot_id|>"
                        + "<|start_header_id|>assistant<|end_header_id|>\n\n");
    }

    private static final String LLAMA_31_AND_33 = """
            <|begin_of_text|><|start_header_id|>system<|end_header_id|>

            Cutting Knowledge Date: December 2023
            Today Date: 26 Jul 2024

            You are a helpful assistant.<|eot_id|><|start_header_id|>user<|end_header_id|>

            Hello!<|eot_id|><|start_header_id|>assistant<|end_header_id|>

            Hi there, how can I help?<|eot_id|><|start_header_id|>user<|end_header_id|>

            What is 2+2?<|eot_id|><|start_header_id|>assistant<|end_header_id|>

            """;

    @ParameterizedTest
    @ValueSource(strings = {"meta-llama-Llama-3.1-8B-Instruct.jinja", "meta-llama-Llama-3.3-70B-Instruct.jinja"})
    void llama31And33(String file) throws IOException {
        assertThat(render(file, "<|begin_of_text|>", "<|eot_id|>", Map.of())).isEqualTo(LLAMA_31_AND_33);
    }

    @Test
    void llama32PrintsTodaysDateFromStrftimeNow() throws IOException {
        assertThat(render("meta-llama-Llama-3.2-3B-Instruct.jinja", "<|begin_of_text|>", "<|eot_id|>", Map.of()))
                .isEqualTo("""
                        <|begin_of_text|><|start_header_id|>system<|end_header_id|>

                        Cutting Knowledge Date: December 2023
                        Today Date: 07 Mar 2025

                        You are a helpful assistant.<|eot_id|><|start_header_id|>user<|end_header_id|>

                        Hello!<|eot_id|><|start_header_id|>assistant<|end_header_id|>

                        Hi there, how can I help?<|eot_id|><|start_header_id|>user<|end_header_id|>

                        What is 2+2?<|eot_id|><|start_header_id|>assistant<|end_header_id|>

                        """);
    }

    @Test
    void llamaTakesDateStringFromTheCaller() throws IOException {
        assertThat(render("meta-llama-Llama-3.2-3B-Instruct.jinja", "", "", Map.of("date_string", "01 Jan 2030")))
                .contains("Today Date: 01 Jan 2030\n");
    }

    @Test
    void qwen25() throws IOException {
        assertThat(render("Qwen-Qwen2.5-7B-Instruct.jinja", null, "<|im_end|>", Map.of())).isEqualTo("""
                <|im_start|>system
                You are a helpful assistant.<|im_end|>
                <|im_start|>user
                Hello!<|im_end|>
                <|im_start|>assistant
                Hi there, how can I help?<|im_end|>
                <|im_start|>user
                What is 2+2?<|im_end|>
                <|im_start|>assistant
                """);
    }

    @Test
    void mistralNemoPutsTheSystemMessageIntoTheLastUserTurn() throws IOException {
        assertThat(render("mistralai-Mistral-Nemo-Instruct-2407.jinja", "<s>", "</s>", Map.of())).isEqualTo("""
                <s>[INST]Hello![/INST]Hi there, how can I help?</s>[INST]You are a helpful assistant.

                What is 2+2?[/INST]""");
    }

    private static Map<String, Object> weatherTool() {
        Map<String, Object> city = new LinkedHashMap<>();
        city.put("type", "string");
        city.put("description", "The city");
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("type", "object");
        parameters.put("properties", Map.of("city", city));
        parameters.put("required", List.of("city"));
        Map<String, Object> function = new LinkedHashMap<>();
        function.put("name", "get_weather");
        function.put("description", "Get the weather");
        function.put("parameters", parameters);
        Map<String, Object> tool = new LinkedHashMap<>();
        tool.put("type", "function");
        tool.put("function", function);
        return tool;
    }

    @Test
    void qwen25WithTools() throws IOException {
        String out = render("Qwen-Qwen2.5-7B-Instruct.jinja", null, "<|im_end|>", Map.of("tools", List.of(weatherTool())));
        assertThat(out).isEqualTo("""
                <|im_start|>system
                You are a helpful assistant.

                # Tools

                You may call one or more functions to assist with the user query.

                You are provided with function signatures within <tools></tools> XML tags:
                <tools>
                {"type": "function", "function": {"name": "get_weather", "description": "Get the weather", \
                "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "The city"}}, \
                "required": ["city"]}}}
                </tools>

                For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
                <tool_call>
                {"name": <function-name>, "arguments": <args-json-object>}
                </tool_call><|im_end|>
                <|im_start|>user
                Hello!<|im_end|>
                <|im_start|>assistant
                Hi there, how can I help?<|im_end|>
                <|im_start|>user
                What is 2+2?<|im_end|>
                <|im_start|>assistant
                """);
    }

    @ParameterizedTest
    @ValueSource(strings = {"NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja", "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja"})
    void hermesWithTools(String file) throws IOException {
        String out = render(file, "<|begin_of_text|>", "<|im_end|>", Map.of("tools", List.of(weatherTool())));
        assertThat(out)
                .startsWith("<|begin_of_text|><|im_start|>system\nYou are a function calling AI model.")
                .contains("Here are the available tools: <tools> {\"type\": \"function\", \"function\": "
                        + "{\"name\": \"get_weather\", \"description\": \"get_weather(city: str) - Get the weather\n\n"
                        + "    Args:\n        city(str): The city\", \"parameters\": {\"type\": \"object\", "
                        + "\"properties\": {\"city\": {\"type\": \"string\", \"description\": \"The city\"}}, "
                        + "\"required\": [\"city\"]}} </tools>")
                .endsWith("<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n");
    }

    @Test
    void qwen25RendersAToolCallAndItsResult() throws IOException {
        Map<String, Object> call = new LinkedHashMap<>();
        call.put("type", "function");
        call.put("function", Map.of("name", "get_weather", "arguments", Map.of("city", "Paris")));
        Map<String, Object> assistant = message("assistant", null);
        assistant.put("tool_calls", List.of(call));
        Map<String, Object> tool = message("tool", "{\"temp\": 21}");
        List<Map<String, Object>> messages = List.of(message("user", "Weather in Paris?"), assistant, tool);
        String out = template("Qwen-Qwen2.5-7B-Instruct.jinja", null, "<|im_end|>")
                .render(messages, true, Map.of("tools", List.of(weatherTool())));
        assertThat(out).endsWith("""
                <|im_start|>user
                Weather in Paris?<|im_end|>
                <|im_start|>assistant
                <tool_call>
                {"name": "get_weather", "arguments": {"city": "Paris"}}
                </tool_call><|im_end|>
                <|im_start|>user
                <tool_response>
                {"temp": 21}
                </tool_response><|im_end|>
                <|im_start|>assistant
                """);
    }
}
