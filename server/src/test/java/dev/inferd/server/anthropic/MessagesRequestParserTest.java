package dev.inferd.server.anthropic;

import dev.inferd.engine.chat.Message;
import dev.inferd.engine.chat.ToolCall;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.ChatTools;
import dev.inferd.server.openai.WireJson;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MessagesRequestParserTest {

    private static MessagesRequest parse(String json) {
        return MessagesRequestParser.parse(WireJson.parse(json.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void blocksBecomeTheTemplatesTurns() {
        MessagesRequest r = parse("""
                {"model":"m","max_tokens":10,"system":[{"type":"text","text":"A"},{"type":"text","text":"B"}],
                 "messages":[
                  {"role":"user","content":[{"type":"text","text":"Weather?"},{"type":"text","text":"In Paris."}]},
                  {"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},
                    {"type":"text","text":"Let me look."},
                    {"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"city":"Paris"}}]},
                  {"role":"user","content":[
                    {"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"18C"}]},
                    {"type":"tool_result","tool_use_id":"toolu_2","content":"no such city","is_error":true},
                    {"type":"text","text":"Thanks"}]},
                  {"role":"system","content":[{"type":"text","text":"Be brief."}],"output_config":{"effort":"low"}}]}""");
        assertThat(r.conversation()).containsExactly(
                Message.system("A\nB"),
                Message.user("Weather?\nIn Paris."),
                Message.assistant("Let me look.", java.util.List.of(new ToolCall("toolu_1", "get_weather", "{\"city\":\"Paris\"}"))),
                Message.tool("toolu_1", "18C"),
                Message.tool("toolu_2", "Error: no such city"),
                Message.user("Thanks\nBe brief."));
        assertThat(r.thinking()).isEqualTo(MessagesRequest.Thinking.OFF);
        assertThat(r.stream()).isFalse();
    }

    @Test
    void systemTurnsJoinTheLeadingSystemMessageOrAUserTurnSoThatEveryTemplateTakesThem() {
        MessagesRequest r = parse("""
                {"model":"m","max_tokens":10,"system":"A","messages":[
                  {"role":"system","content":"B"},
                  {"role":"user","content":"Hi"},
                  {"role":"system","content":"Env"},
                  {"role":"assistant","content":"Hello"},
                  {"role":"system","content":"Later"},
                  {"role":"user","content":"Bye"},
                  {"role":"assistant","content":"Ciao"},
                  {"role":"system","content":"Last"}]}""");
        assertThat(r.conversation()).containsExactly(Message.system("A\nB"), Message.user("Hi\nEnv"),
                Message.assistant("Hello"), Message.user("Later\nBye"), Message.assistant("Ciao"), Message.system("Last"));
    }

    @Test
    void customToolsAreOfferedAndToolsTheServerCannotRunLeftOut() {
        MessagesRequest r = parse("""
                {"model":"m","max_tokens":10,"messages":[{"role":"user","content":"Hi"}],
                 "tools":[{"name":"Read","input_schema":{"type":"object"},"defer_loading":true,"cache_control":{"type":"ephemeral"}},
                  {"type":"custom","name":"Write","input_schema":{"type":"object"}},
                  {"type":"bash_20250124","name":"bash"},{"type":"web_search_20250305","name":"web_search","max_uses":3}],
                 "tool_choice":{"type":"any","disable_parallel_tool_use":true}}""");
        assertThat(r.tools().definitions()).extracting(d -> d.name()).containsExactly("Read", "Write");
        assertThat(r.tools().choice()).isEqualTo(ChatTools.Choice.REQUIRED);
        assertThat(r.tools().parallelCalls()).isFalse();

        MessagesRequest named = parse("""
                {"model":"m","max_tokens":10,"messages":[{"role":"user","content":"Hi"}],
                 "tools":[{"name":"Read","input_schema":{"type":"object"}},{"name":"Write","input_schema":{"type":"object"}}],
                 "tool_choice":{"type":"tool","name":"Write"}}""");
        assertThat(named.tools().allowed()).containsExactly("Write");
        assertThat(named.tools().forcesCall()).isTrue();

        assertThatThrownBy(() -> parse("""
                {"model":"m","max_tokens":10,"messages":[{"role":"user","content":"Hi"}],
                 "tools":[{"type":"bash_20250124","name":"bash"}],"tool_choice":{"type":"tool","name":"bash"}}"""))
                .isInstanceOf(ApiError.class).hasMessageContaining("cannot run");
    }

    @Test
    void thinkingSettingsAreRead() {
        var adaptive = parse("""
                {"model":"m","max_tokens":10,"messages":[{"role":"user","content":"Hi"}],
                 "thinking":{"type":"adaptive","display":"omitted"}}""").thinking();
        assertThat(adaptive.mode()).isEqualTo(MessagesRequest.Thinking.Mode.ADAPTIVE);
        assertThat(adaptive.omitted()).isTrue();
        assertThat(adaptive.enableThinking()).isNull();
        var enabled = parse("""
                {"model":"m","max_tokens":4000,"messages":[{"role":"user","content":"Hi"}],
                 "thinking":{"type":"enabled","budget_tokens":2048}}""").thinking();
        assertThat(enabled.budgetTokens()).isEqualTo(2048);
        assertThat(parse("""
                {"model":"m","max_tokens":10,"messages":[{"role":"user","content":"Hi"}],"thinking":{"type":"disabled"}}""")
                .thinking().enableThinking()).isFalse();
    }

    @Test
    void aBudgetAboveMaxTokensIsAllowedUnderInterleavedThinkingOnly() {
        String body = """
                {"model":"m","max_tokens":2000,"messages":[{"role":"user","content":"Hi"}],
                 "thinking":{"type":"enabled","budget_tokens":8000}}""";
        assertThatThrownBy(() -> parse(body)).isInstanceOf(ApiError.class).hasMessageContaining("budget_tokens");
        assertThatThrownBy(() -> MessagesRequestParser.parse(WireJson.parse(body.getBytes(StandardCharsets.UTF_8)),
                AnthropicBetas.of(List.of("claude-code-20250219")))).isInstanceOf(ApiError.class);
        var betas = AnthropicBetas.of(List.of("claude-code-20250219, interleaved-thinking-2025-05-14", "other"));
        assertThat(betas.interleavedThinking()).isTrue();
        var thinking = MessagesRequestParser.parse(WireJson.parse(body.getBytes(StandardCharsets.UTF_8)), betas).thinking();
        assertThat(thinking.budgetTokens()).isEqualTo(8000);
        // the budget's floor still holds
        assertThatThrownBy(() -> MessagesRequestParser.parse(WireJson.parse(body.replace("8000", "512")
                .getBytes(StandardCharsets.UTF_8)), betas)).isInstanceOf(ApiError.class).hasMessageContaining("budget_tokens");
    }

    @Test
    void countingNeedsNoMaxTokens() {
        var r = MessagesRequestParser.parseForCounting(WireJson.parse("""
                {"model":"m","messages":[{"role":"user","content":"Hi"}],"stream":true}""".getBytes(StandardCharsets.UTF_8)));
        assertThat(r.maxTokens()).isZero();
        assertThat(r.stream()).isFalse();
    }

    @Test
    void unreadableAndUnknownBlocksAreRefusedByName() {
        assertThatThrownBy(() -> parse("""
                {"model":"m","max_tokens":10,"messages":[{"role":"user","content":[
                  {"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{}}]}]}]}"""))
                .isInstanceOf(ApiError.class).hasMessageContaining("'image'").hasMessageContaining("text only");
        assertThatThrownBy(() -> parse("""
                {"model":"m","max_tokens":10,"messages":[{"role":"user","content":[{"type":"hologram"}]}]}"""))
                .isInstanceOf(ApiError.class).hasMessageContaining("messages[0].content[0].type");
        assertThatThrownBy(() -> parse("""
                {"model":"m","max_tokens":10,"messages":[{"role":"user","content":"Hi"}],"stop_sequences":[" "]}"""))
                .isInstanceOf(ApiError.class).hasMessageContaining("non-whitespace");
    }
}
