package dev.inferd.engine.chat;

import dev.inferd.engine.Fixtures;
import dev.inferd.engine.chat.output.ToolCallFormat;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every fixture template renders four conversations (system + developer + chat; a tool call, its
 * result and the answer; two parallel calls and their results; a call of Llama's built-in
 * {@code brave_search} with the variables {@code builtin_tools}, {@code tools_in_user_message}
 * false and {@code date_string}) exactly as Python's jinja2 renders
 * them in Hugging Face transformers' environment. The expected strings under
 * {@code resources/dev/inferd/engine/chat/rendered/} ({@code <template>.<conversation>.txt}; a
 * template's own error as {@code !error: <message>}) were produced by a script that builds the
 * template input independently, by the rules {@link ChatFormat} documents, with per-template
 * capabilities written by hand (the table below checks that the probes find the same ones):
 *
 * <pre>
 * python3 render.py ../shared/fixtures/chat-templates engine/src/test/resources/dev/inferd/engine/chat/rendered
 * </pre>
 *
 * with jinja2 3.1.6. The script (render.py, kept outside the project):
 *
 * <pre>{@code
 * env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
 * env.filters["tojson"] = lambda x, ensure_ascii=False, indent=None, separators=None, sort_keys=False:
 *     json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)
 * env.globals["raise_exception"] = raise TemplateError(message)
 * env.globals["strftime_now"] = lambda fmt: datetime(2025, 3, 7, 10, 0, 0).strftime(fmt)
 * for each template (bos, eos, renders tools, turns "string"/"object"/"text", folds system, mistral ids):
 *   for each conversation below (same texts, ids and tools):
 *     messages = convert(conversation)   # developer -> system, runs of system joined by "\n\n",
 *                                        # the generic tool prompt when tools are not rendered,
 *                                        # calls {id, type, function {name, arguments}} (arguments
 *                                        # json.loads'ed for "object"), tool {role, content,
 *                                        # tool_call_id, name}; "text": calls as the generic JSON
 *                                        # reply and results as "Result of <name>:\n<content>" user
 *                                        # turns; mistral ids = last 9 alphanumerics after "call_";
 *                                        # system folded into the next user turn
 *     render(messages=..., add_generation_prompt=True, bos_token, eos_token,
 *            functions=json.dumps(functions, indent=4), datetime="Mar 07 2025", (the built-in variables),
 *            tools=[{type: function, function: f}] if the template renders tools)
 * }</pre>
 *
 * Checked by hand once per family: Llama (system header, tools JSON in the first user turn, call
 * as {@code {"name", "parameters"}}, the result as a JSON string under {@code ipython}, parallel
 * calls refused by the template), Qwen/Hermes ({@code <tool_call>} blocks, results in
 * {@code <tool_response>}), Mistral (tools before the last user turn, ids of 9, the system text
 * in the last user turn), Gemma (system and tool text folded into user turns), DeepSeek (the
 * generic prompt, calls in its own tokens, the generation prompt opening {@code <think>}).
 */
class ChatFormatRenderingTest {
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2025-03-07T10:00:00Z"), ZoneOffset.UTC);
    private static final String LLAMA_BOS = "<|begin_of_text|>";
    private static final String LLAMA_EOS = "<|eot_id|>";
    private static final String DEEPSEEK_BOS = "<｜begin▁of▁sentence｜>";
    private static final String DEEPSEEK_EOS = "<｜end▁of▁sentence｜>";

    private static final ToolDefinition WEATHER = new ToolDefinition("get_weather", "Get the current weather in a city", """
            {"type": "object", "properties": {"city": {"type": "string", "description": "The city name"}, \
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "description": "Temperature unit"}}, "required": ["city"]}""");
    private static final ToolDefinition TIME = new ToolDefinition("get_time", "Get the local time in a city", """
            {"type": "object", "properties": {"city": {"type": "string", "description": "The city name"}}, "required": ["city"]}""");
    private static final List<ToolDefinition> TOOLS = List.of(WEATHER, TIME);

    private static final Map<String, List<Message>> CONVERSATIONS = Map.of(
            "chat", List.of(
                    Message.system("You are a helpful assistant."),
                    Message.developer("Answer in one sentence."),
                    Message.user("Hello!"),
                    Message.assistant("Hi there, how can I help?"),
                    Message.user("What is 2+2?")),
            "tools", List.of(
                    Message.system("You are a helpful assistant."),
                    Message.user("What is the weather in Paris?"),
                    Message.assistant(null, List.of(new ToolCall("call_abc123def456", "get_weather", "{\"city\": \"Paris\", \"unit\": \"celsius\"}"))),
                    Message.tool("call_abc123def456", "{\"temperature\": 21, \"condition\": \"sunny\"}"),
                    Message.assistant("It is 21 °C and sunny in Paris."),
                    Message.user("And in Tokyo?")),
            "parallel", List.of(
                    Message.user("Weather and time in Tokyo?"),
                    Message.assistant(null, List.of(
                            new ToolCall("call_0000weather1", "get_weather", "{\"city\": \"Tokyo\"}"),
                            new ToolCall("call_00000time02", "get_time", "{\"city\": \"Tokyo\"}"))),
                    Message.tool("call_0000weather1", "18 degrees, cloudy"),
                    Message.tool("call_00000time02", "21:04")),
            "builtin", List.of(
                    Message.system("You are a helpful assistant."),
                    Message.user("Weather in Menlo Park?"),
                    Message.assistant(null, List.of(new ToolCall("call_brave0000001", "brave_search", "{\"query\": \"Menlo Park weather\"}"))),
                    Message.tool("call_brave0000001", "Sunny, 24 C")));

    /** Llama's variables for built-in tools, a system prompt with the tools, and a fixed date. */
    private static final Map<String, Object> BUILTIN_VARIABLES = Map.of(
            "builtin_tools", List.of("brave_search", "wolfram_alpha"), "tools_in_user_message", false, "date_string", "01 Mar 2025");

    /** What the script was told about each template, and what the probes must find. */
    private record Expectation(String file, String bos, String eos, ToolCallFormat format, boolean rendersTools, boolean foldsSystem) {
    }

    private static final List<Expectation> TEMPLATES = List.of(
            new Expectation("CohereForAI-c4ai-command-r-plus-tool_use", "<BOS_TOKEN>", "<|END_OF_TURN_TOKEN|>", ToolCallFormat.GENERIC, false, false),
            new Expectation("CohereForAI-c4ai-command-r7b-12-2024-tool_use", "<BOS_TOKEN>", "<|END_OF_TURN_TOKEN|>", ToolCallFormat.GENERIC, false, false),
            new Expectation("NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use", LLAMA_BOS, "<|im_end|>", ToolCallFormat.HERMES, true, false),
            new Expectation("NousResearch-Hermes-3-Llama-3.1-8B-tool_use", LLAMA_BOS, "<|im_end|>", ToolCallFormat.HERMES, true, false),
            new Expectation("Qwen-Qwen2.5-7B-Instruct", "", "<|im_end|>", ToolCallFormat.HERMES, true, false),
            new Expectation("deepseek-ai-DeepSeek-R1-Distill-Llama-8B", DEEPSEEK_BOS, DEEPSEEK_EOS, ToolCallFormat.GENERIC, false, false),
            new Expectation("deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", DEEPSEEK_BOS, DEEPSEEK_EOS, ToolCallFormat.GENERIC, false, false),
            new Expectation("fireworks-ai-llama-3-firefunction-v2", LLAMA_BOS, LLAMA_EOS, ToolCallFormat.GENERIC, false, false),
            new Expectation("google-gemma-2-2b-it", "<bos>", "<eos>", ToolCallFormat.GENERIC, false, true),
            new Expectation("llama-cpp-deepseek-r1", DEEPSEEK_BOS, DEEPSEEK_EOS, ToolCallFormat.GENERIC, false, false),
            new Expectation("meetkai-functionary-medium-v3.1", LLAMA_BOS, LLAMA_EOS, ToolCallFormat.GENERIC, false, false),
            new Expectation("meetkai-functionary-medium-v3.2", LLAMA_BOS, LLAMA_EOS, ToolCallFormat.GENERIC, false, false),
            new Expectation("meta-llama-Llama-3.1-8B-Instruct", LLAMA_BOS, LLAMA_EOS, ToolCallFormat.LLAMA3, true, false),
            new Expectation("meta-llama-Llama-3.2-3B-Instruct", LLAMA_BOS, LLAMA_EOS, ToolCallFormat.LLAMA3, true, false),
            new Expectation("meta-llama-Llama-3.3-70B-Instruct", LLAMA_BOS, LLAMA_EOS, ToolCallFormat.LLAMA3, true, false),
            new Expectation("microsoft-Phi-3.5-mini-instruct", "<s>", "<|endoftext|>", ToolCallFormat.GENERIC, false, false),
            new Expectation("mistralai-Mistral-Nemo-Instruct-2407", "<s>", "</s>", ToolCallFormat.MISTRAL, true, false));

    static Stream<Arguments> cases() {
        return TEMPLATES.stream().flatMap(t -> Stream.of("chat", "tools", "parallel", "builtin").map(c -> Arguments.of(t.file(), c)));
    }

    private static Expectation expectation(String file) {
        return TEMPLATES.stream().filter(t -> t.file().equals(file)).findFirst().orElseThrow();
    }

    private static ChatFormat format(Expectation t) throws IOException {
        String source = Files.readString(Fixtures.require("chat-templates/" + t.file() + ".jinja"));
        return ChatFormat.of(source, t.bos(), t.eos(), CLOCK);
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("cases")
    void rendersAsJinja2Does(String file, String conversation) throws IOException {
        Expectation t = expectation(file);
        ChatFormat format = format(t);
        assertThat(format.toolCallFormat()).isEqualTo(t.format());
        assertThat(format.rendersTools()).isEqualTo(t.rendersTools());
        assertThat(format.foldsSystemIntoUser()).isEqualTo(t.foldsSystem());

        String expected = expected(file + "." + conversation + ".txt");
        List<ToolDefinition> tools = switch (conversation) {
            case "chat" -> List.of();
            case "builtin" -> List.of(WEATHER);
            default -> TOOLS;
        };
        Map<String, Object> variables = new HashMap<>(Map.of("functions", switch (conversation) {
            case "chat" -> "[]";
            case "builtin" -> WEATHER_JSON;
            default -> FUNCTIONS_JSON;
        }, "datetime", "Mar 07 2025"));
        if (conversation.equals("builtin")) {
            variables.putAll(BUILTIN_VARIABLES);
        }
        var options = new PromptOptions(tools, null, variables);
        List<Message> messages = CONVERSATIONS.get(conversation);
        if (expected.startsWith("!error: ")) {
            assertThatThrownBy(() -> format.render(messages, options))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(expected.substring("!error: ".length()));
        } else {
            assertThat(format.render(messages, options).text()).isEqualTo(expected);
        }
    }

    /** {@code json.dumps(functions, indent=4)}: the variable Firefunction's template needs. */
    private static final String FUNCTIONS_JSON = """
            [
                {
                    "name": "get_weather",
                    "description": "Get the current weather in a city",
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "city": {
                                "type": "string",
                                "description": "The city name"
                            },
                            "unit": {
                                "type": "string",
                                "enum": [
                                    "celsius",
                                    "fahrenheit"
                                ],
                                "description": "Temperature unit"
                            }
                        },
                        "required": [
                            "city"
                        ]
                    }
                },
                {
                    "name": "get_time",
                    "description": "Get the local time in a city",
                    "parameters": {
                        "type": "object",
                        "properties": {
                            "city": {
                                "type": "string",
                                "description": "The city name"
                            }
                        },
                        "required": [
                            "city"
                        ]
                    }
                }
            ]""";

    private static final String WEATHER_JSON = FUNCTIONS_JSON.substring(0, FUNCTIONS_JSON.indexOf("    },\n    {")) + "    }\n]";

    private static String expected(String name) throws IOException {
        try (InputStream in = ChatFormatRenderingTest.class.getResourceAsStream("rendered/" + name)) {
            assertThat(in).as(name).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
