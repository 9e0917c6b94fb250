package dev.inferd.engine.chat.output;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Each call syntax's parser on its own, fed one character at a time (the hardest split a generator can make). */
class CallSyntaxParsersTest {

    /** What a parser reported: content, and each call as name(arguments), in order. */
    private static final class Heard implements OutputListener {
        final StringBuilder content = new StringBuilder();
        final List<String> names = new ArrayList<>();
        final List<StringBuilder> arguments = new ArrayList<>();

        @Override
        public void content(String text) {
            content.append(text);
        }

        @Override
        public void toolCallStarted(int index, String name) {
            names.add(name);
            arguments.add(new StringBuilder());
        }

        @Override
        public void toolCallArguments(int index, String fragment) {
            arguments.get(index).append(fragment);
        }

        List<String> calls() {
            List<String> out = new ArrayList<>();
            for (int i = 0; i < names.size(); i++) out.add(names.get(i) + "(" + arguments.get(i) + ")");
            return out;
        }
    }

    private static Heard parse(ToolCallFormat format, String output) {
        var heard = new Heard();
        CallSyntaxParser parser = CallSyntaxParser.of(format, heard);
        for (int i = 0; i < output.length(); i++) parser.accept(output.substring(i, i + 1));
        parser.finish();
        return heard;
    }

    @Test
    void hermesBlocksBetweenText() {
        Heard h = parse(ToolCallFormat.HERMES, "Checking.\n<tool_call>\n{\"name\": \"a\", \"arguments\": {\"x\": 1}}\n"
                + "</tool_call>\n<tool_call>\n{\"arguments\": {}, \"name\": \"b\"}\n</tool_call>");
        assertThat(h.content.toString()).isEqualTo("Checking.\n");
        assertThat(h.calls()).containsExactly("a({\"x\": 1})", "b({})");
    }

    @Test
    void hermesWithoutItsClosingTagGoesBackToContent() {
        Heard h = parse(ToolCallFormat.HERMES, "<tool_call>{\"name\": \"a\", \"arguments\": {}} and then");
        assertThat(h.calls()).containsExactly("a({})");
        assertThat(h.content.toString()).isEqualTo("and then");
    }

    @Test
    void mistralListsAndSingleObjects() {
        assertThat(parse(ToolCallFormat.MISTRAL, "[TOOL_CALLS][{\"name\": \"a\", \"arguments\": {}}, "
                + "{\"name\": \"b\", \"arguments\": {\"y\": \"z\"}, \"id\": \"abc123def\"}]").calls())
                .containsExactly("a({})", "b({\"y\": \"z\"})");
        assertThat(parse(ToolCallFormat.MISTRAL, "Sure.[TOOL_CALLS]{\"name\": \"a\", \"arguments\": \"{\\\"q\\\": 1}\"}")
                .calls()).containsExactly("a({\"q\": 1})");
    }

    @Test
    void llama3JsonRepliesBuiltInCallsAndCode() {
        assertThat(parse(ToolCallFormat.LLAMA3, "{\"name\": \"a\", \"parameters\": {\"x\": 1}}; "
                + "{\"name\": \"b\", \"parameters\": {}}").calls()).containsExactly("a({\"x\": 1})", "b({})");
        assertThat(parse(ToolCallFormat.LLAMA3, "<|python_tag|>brave_search.call(query=\"weather\")").calls())
                .containsExactly("brave_search({\"query\": \"weather\"})");
        assertThat(parse(ToolCallFormat.LLAMA3, "<|python_tag|>print(\"hi\")\nx = 1").calls())
                .containsExactly("python({\"code\": \"print(\\\"hi\\\")\\nx = 1\"})");
        assertThat(parse(ToolCallFormat.LLAMA3, "```json\n{\"type\": \"function\", \"name\": \"a\", \"parameters\": {}}\n```")
                .calls()).containsExactly("a({})");
    }

    @Test
    void genericCallListsBareCallsAndPlainText() {
        Heard list = parse(ToolCallFormat.GENERIC, "{\"tool_calls\": [{\"name\": \"a\", \"arguments\": {}}, "
                + "{\"name\": \"b\", \"arguments\": {\"k\": [1, 2]}}]}");
        assertThat(list.calls()).containsExactly("a({})", "b({\"k\": [1, 2]})");
        assertThat(list.content.toString()).isEmpty();
        Heard fenced = parse(ToolCallFormat.GENERIC, "```json\n{\"name\": \"a\", \"arguments\": {}}\n```");
        assertThat(fenced.calls()).containsExactly("a({})");
        assertThat(fenced.content.toString()).isEmpty();
        Heard text = parse(ToolCallFormat.GENERIC, "{\"answer\": 42} is JSON, not a call");
        assertThat(text.calls()).isEmpty();
        assertThat(text.content.toString()).isEqualTo("{\"answer\": 42} is JSON, not a call");
    }
}
