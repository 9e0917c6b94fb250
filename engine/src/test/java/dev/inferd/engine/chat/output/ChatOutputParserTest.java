package dev.inferd.engine.chat.output;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ChatOutputParserTest {

    private static final class Events implements OutputListener {
        final List<String> log = new ArrayList<>();

        @Override
        public void content(String text) {
            log.add("content:" + text);
        }

        @Override
        public void reasoning(String text) {
            log.add("reasoning:" + text);
        }

        @Override
        public void toolCallStarted(int index, String name) {
            log.add("start:" + index + ":" + name);
        }

        @Override
        public void toolCallArguments(int index, String fragment) {
            log.add("args:" + index + ":" + fragment);
        }
    }

    @Test
    void theOpenCallIsKnownFromTheMarkerAndItsNameAsSoonAsItIsComplete() {
        var events = new Events();
        var parser = new ChatOutputParser(ToolCallFormat.HERMES, false, false, events);
        parser.accept("Checking.\n<tool_");
        assertThat(parser.openCall()).isNull();
        assertThat(events.log).containsExactly("content:Checking.\n");
        parser.accept("call>");
        assertThat(parser.openCall()).isEqualTo(new OpenCall(0, null, ""));
        parser.accept("\n{\"name\": \"get_wea");
        assertThat(parser.openCall()).isEqualTo(new OpenCall(0, null, "\n{\"name\": \"get_wea"));
        parser.accept("ther\", \"arguments\": {\"ci");
        assertThat(parser.openCall()).isEqualTo(new OpenCall(0, "get_weather", "\n{\"name\": \"get_weather\", \"arguments\": {\"ci"));
        parser.accept("ty\": \"Paris\"}}\n</tool_call>");
        assertThat(parser.openCall()).isNull();
        parser.finish();
        assertThat(events.log).containsExactly("content:Checking.\n", "start:0:get_weather", "args:0:{\"ci", "args:0:ty\": \"Paris\"}");
        assertThat(parser.result().toolCalls()).containsExactly(new ParsedToolCall(0, "get_weather", "{\"city\": \"Paris\"}", true));
        assertThat(parser.result().content()).isEqualTo("Checking.\n");
    }

    @Test
    void mistralListStaysOpenBetweenCalls() {
        var parser = new ChatOutputParser(ToolCallFormat.MISTRAL, false, false, OutputListener.NONE);
        parser.acceptControlToken("[TOOL_CALLS]");
        parser.accept("[{\"name\": \"a\", \"arguments\": {}}, ");
        assertThat(parser.openCall()).isEqualTo(new OpenCall(1, null, "[{\"name\": \"a\", \"arguments\": {}}, "));
        parser.accept("{\"name\": \"b\", \"arguments\": {\"x\": 1}}]");
        assertThat(parser.openCall()).isNull();
        parser.finish();
        assertThat(parser.result().toolCalls()).extracting(ParsedToolCall::name).containsExactly("a", "b");
    }

    @Test
    void anOutputCutInsideACallGivesAnIncompleteCall() {
        var parser = new ChatOutputParser(ToolCallFormat.HERMES, false, false, OutputListener.NONE);
        parser.accept("<tool_call>\n{\"name\": \"f\", \"arguments\": {\"q\": \"abc");
        parser.finish();
        assertThat(parser.result().toolCalls()).containsExactly(new ParsedToolCall(0, "f", "{\"q\": \"abc", false));
        assertThat(parser.result().content()).isNull();
    }

    @Test
    void thePythonTagControlTokenOpensACallAndNeverReachesTheContent() {
        var events = new Events();
        var parser = new ChatOutputParser(ToolCallFormat.LLAMA3, false, false, events);
        parser.accept("Let me check.");
        parser.acceptControlToken("<|python_tag|>");
        assertThat(parser.openCall()).isNotNull();
        parser.accept("{\"name\": \"get_time\", \"parameters\": {\"zone\": \"UTC\"}}");
        parser.acceptControlToken("<|eom_id|>");
        parser.finish();
        assertThat(parser.result().content()).isEqualTo("Let me check.");
        assertThat(parser.result().toolCalls()).containsExactly(new ParsedToolCall(0, "get_time", "{\"zone\": \"UTC\"}", true));
        assertThat(String.join("", events.log)).doesNotContain("python_tag");
    }

    @Test
    void theToolCallsControlTokenAfterTextOpensAList() {
        var parser = new ChatOutputParser(ToolCallFormat.MISTRAL, false, false, OutputListener.NONE);
        parser.accept("Sure.");
        parser.acceptControlToken("[TOOL_CALLS]");
        parser.accept("[{\"name\": \"a\", \"arguments\": {}}]");
        parser.finish();
        assertThat(parser.result().content()).isEqualTo("Sure.");
        assertThat(parser.result().toolCalls()).extracting(ParsedToolCall::name).containsExactly("a");
    }

    @Test
    void otherControlTokensAreNotText() {
        var parser = new ChatOutputParser(ToolCallFormat.LLAMA3, false, false, OutputListener.NONE);
        parser.accept("Hi");
        parser.acceptControlToken("<|start_header_id|>");
        parser.accept(" there");
        parser.finish();
        assertThat(parser.result().content()).isEqualTo("Hi there");
    }

    @Test
    void withoutToolsEverythingIsContent() {
        var parser = new ChatOutputParser(null, false, false, OutputListener.NONE);
        parser.accept("<tool_call>{\"name\": \"f\"}</tool_call>");
        parser.finish();
        assertThat(parser.result()).isEqualTo(new ParsedOutput("<tool_call>{\"name\": \"f\"}</tool_call>", null, List.of()));
    }

    @Test
    void builtInCallArgumentsBecomeJson() {
        assertThat(PythonCallArguments.toJson("query=\"a \\\"b\\\"\", n=3, exact=True, lang='en', x=None"))
                .isEqualTo("{\"query\": \"a \\\"b\\\"\", \"n\": 3, \"exact\": true, \"lang\": \"en\", \"x\": null}");
        assertThat(PythonCallArguments.toJson("")).isEqualTo("{}");
    }

    @Test
    void whitespaceBeforeAndBetweenCallsIsNotContent() {
        var events = new Events();
        var parser = new ChatOutputParser(ToolCallFormat.HERMES, false, false, events);
        parser.accept("\n\n<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>\n\n  <tool_call>{\"name\": \"g\", \"arguments\": {}}</tool_call>\n");
        parser.finish();
        assertThat(events.log).containsExactly("start:0:f", "args:0:{}", "start:1:g", "args:1:{}");
    }

    @Test
    void theCanonicalCallTextOfEachFormatParsesBackIntoItsCalls() {
        for (ToolCallFormat format : ToolCallFormat.values()) {
            String text = format.open()
                    + format.callStart("get_weather") + "{\"city\": \"Paris\"}" + format.callEnd()
                    + format.between()
                    + format.callStart("get_time") + "{}" + format.callEnd()
                    + format.close();
            for (int cut = 0; cut <= text.length(); cut++) {
                var parser = new ChatOutputParser(format, false, false, OutputListener.NONE);
                parser.accept(text.substring(0, cut));
                parser.accept(text.substring(cut));
                parser.finish();
                assertThat(parser.result()).as(format + " " + text).isEqualTo(new ParsedOutput(null, null, List.of(
                        new ParsedToolCall(0, "get_weather", "{\"city\": \"Paris\"}", true),
                        new ParsedToolCall(1, "get_time", "{}", true))));
            }
        }
    }
}
