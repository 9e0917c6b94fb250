package dev.inferd.engine.chat;

import dev.inferd.engine.Fixtures;
import dev.inferd.engine.chat.output.ParsedOutput;
import dev.inferd.engine.chat.output.OutputListener;
import dev.inferd.engine.chat.output.ToolCallFormat;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ChatFormatTest {
    private static final String ROLES = "{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}"
            + "{% if add_generation_prompt %}[assistant]{% endif %}";
    private static final ToolDefinition WEATHER = new ToolDefinition("get_weather", null,
            "{\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}}");

    /** A template in Qwen3's manner (written for this test): thinking unless enable_thinking is false. */
    private static final String THINKING = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
            + "{% if add_generation_prompt %}<|im_start|>assistant\n"
            + "{% if enable_thinking is defined and enable_thinking is false %}<think>\n\n</think>\n\n{% endif %}{% endif %}";

    @Test
    void developerIsSystemAndLeadingSystemMessagesJoin() {
        ChatFormat format = ChatFormat.of(ROLES, "", "");
        String out = format.render(List.of(Message.system("A"), Message.developer("B"), Message.user("hi")), PromptOptions.NONE).text();
        assertThat(out).isEqualTo("[system]A\n\nB[user]hi[assistant]");
    }

    @Test
    void aTemplateWithoutToolsGetsTheGenericPromptAsItsSystemMessage() {
        ChatFormat format = ChatFormat.of(ROLES, "", "");
        assertThat(format.toolCallFormat()).isEqualTo(ToolCallFormat.GENERIC);
        assertThat(format.rendersTools()).isFalse();
        String out = format.render(List.of(Message.user("hi")), PromptOptions.withTools(List.of(WEATHER))).text();
        assertThat(out).startsWith("[system]# Tools\n\nYou can call these functions; \"parameters\" is the JSON Schema of each one's arguments:\n"
                        + "{\"name\": \"get_weather\", \"parameters\": {\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}}}\n")
                .contains("{\"tool_calls\": [{\"name\": \"<function name>\", \"arguments\": {<argument name>: <value>, ...}}]}")
                .endsWith("[user]hi[assistant]");
        String withSystem = format.render(List.of(Message.system("Be brief."), Message.user("hi")), PromptOptions.withTools(List.of(WEATHER))).text();
        assertThat(withSystem).startsWith("[system]Be brief.\n\n# Tools\n");
    }

    @Test
    void noTemplateUsesThePlainFormatAndTheGenericTools() {
        ChatFormat format = ChatFormat.of(null, "<s>", "</s>");
        assertThat(format.toolCallFormat()).isEqualTo(ToolCallFormat.GENERIC);
        String out = format.render(List.of(Message.user("Weather?"),
                Message.assistant(null, List.of(new ToolCall("call_1", "get_weather", "{\"city\":\"Paris\"}"))),
                Message.tool("call_1", "sunny")), PromptOptions.withTools(List.of(WEATHER))).text();
        assertThat(out).contains("user: Weather?\nassistant: {\"tool_calls\": [{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]}\n"
                + "user: Result of get_weather:\nsunny\nassistant:");
    }

    @Test
    void badArgumentsOrParametersAreTheCallersError() {
        ChatFormat format = ChatFormat.of(ROLES, "", "");
        assertThatThrownBy(() -> format.render(List.of(Message.user("hi"),
                Message.assistant(null, List.of(new ToolCall("c", "f", "{oops"))), Message.tool("c", "r")), PromptOptions.NONE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the arguments of tool call c are not valid JSON");
        assertThatThrownBy(() -> format.render(List.of(Message.user("hi")),
                PromptOptions.withTools(List.of(new ToolDefinition("f", null, "[1,")))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("tool f parameters are not valid JSON");
        assertThatThrownBy(() -> Message.user(null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Message(Message.Role.USER, "x", List.of(new ToolCall("c", "f", "{}")), null, null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new Message(Message.Role.TOOL, "x", List.of(), null, null))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void mistralCallIdsAreNineAlphanumericsThatStillMatchTheirResults() {
        assertThat(MistralCallIds.of("a1b2c3d4e")).isEqualTo("a1b2c3d4e");
        assertThat(MistralCallIds.of("call_abc123def456")).isEqualTo("123def456");
        String short1 = MistralCallIds.of("call_1");
        assertThat(short1).matches("[A-Za-z0-9]{9}").isEqualTo(MistralCallIds.of("call_1")).isNotEqualTo(MistralCallIds.of("call_2"));
    }

    @Test
    void thinkingTemplates() {
        ChatFormat format = ChatFormat.of(THINKING, "", "");
        assertThat(format.thinks()).isTrue();
        RenderedPrompt open = format.render(List.of(Message.user("hi /think")), PromptOptions.NONE);
        assertThat(open.opensReasoning()).isFalse();
        RenderedPrompt closed = format.render(List.of(Message.user("hi")), new PromptOptions(List.of(), false, Map.of()));
        assertThat(closed.text()).endsWith("<|im_start|>assistant\n<think>\n\n</think>\n\n");
        assertThat(closed.opensReasoning()).isFalse();

        var parser = format.outputParser(open, true, false, OutputListener.NONE);
        parser.accept("<thi");
        parser.accept("nk>\nHmm.\n</th");
        assertThat(parser.inReasoning()).isTrue();
        parser.accept("ink>\n\nHello!");
        parser.finish();
        assertThat(parser.result()).isEqualTo(new ParsedOutput("Hello!", "Hmm.", List.of()));

        var raw = format.outputParser(open, false, false, OutputListener.NONE);
        raw.accept("<think>\nHmm.\n</think>\n\nHello!");
        raw.finish();
        assertThat(raw.result().content()).isEqualTo("<think>\nHmm.\n</think>\n\nHello!");
    }

    @Test
    void deepSeekPromptsOpenTheThinkingBlock() throws IOException {
        String source = Files.readString(Fixtures.require("chat-templates/deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja"));
        ChatFormat format = ChatFormat.of(source, "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>");
        RenderedPrompt prompt = format.render(List.of(Message.user("What is 15% of 80?")), PromptOptions.NONE);
        assertThat(prompt.text()).endsWith("<｜Assistant｜><think>\n");
        assertThat(prompt.opensReasoning()).isTrue();

        var parser = format.outputParser(prompt, true, false, OutputListener.NONE);
        parser.accept("10% is 8, 5% is 4: 12.\n</think>\n\n12.");
        parser.finish();
        assertThat(parser.result()).isEqualTo(new ParsedOutput("12.", "10% is 8, 5% is 4: 12.", List.of()));
    }

    @Test
    void gemmaGetsItsSystemTextInTheFirstUserTurn() throws IOException {
        String source = Files.readString(Fixtures.require("chat-templates/google-gemma-2-2b-it.jinja"));
        ChatFormat format = ChatFormat.of(source, "<bos>", "<eos>");
        assertThat(format.foldsSystemIntoUser()).isTrue();
        assertThat(format.render(List.of(Message.system("Be terse."), Message.user("Hi")), PromptOptions.NONE).text())
                .isEqualTo("<bos><start_of_turn>user\nBe terse.\n\nHi<end_of_turn>\n<start_of_turn>model\n");
    }

    @Test
    void templateErrorsAreTheCallersError() throws IOException {
        String source = Files.readString(Fixtures.require("chat-templates/google-gemma-2-2b-it.jinja"));
        ChatFormat format = ChatFormat.of(source, "<bos>", "<eos>");
        assertThatThrownBy(() -> format.render(List.of(Message.user("a"), Message.user("b")), PromptOptions.NONE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Conversation roles must alternate user/assistant/user/assistant/...");
    }
}
