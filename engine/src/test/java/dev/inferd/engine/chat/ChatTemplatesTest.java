package dev.inferd.engine.chat;

import dev.inferd.engine.chat.jinja.TemplateException;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ChatTemplatesTest {
    private static final List<Map<String, Object>> CONVERSATION = List.of(
            Map.of("role", "system", "content", "Be brief."),
            Map.of("role", "user", "content", "Hi"));

    @Test
    void noTemplateMeansThePlainFormat() {
        assertThat(ChatTemplates.of(null, "<s>", "</s>")).isInstanceOf(PlainChatTemplate.class);
        assertThat(ChatTemplates.of("  ", "<s>", "</s>")).isInstanceOf(PlainChatTemplate.class);
    }

    @Test
    void plainFormatIsRoleColonContentLinesThenAssistantColon() {
        ChatTemplate plain = new PlainChatTemplate();
        assertThat(plain.render(CONVERSATION, true, Map.of())).isEqualTo("system: Be brief.\nuser: Hi\nassistant:");
        assertThat(plain.render(CONVERSATION, false, Map.of())).isEqualTo("system: Be brief.\nuser: Hi\n");
        List<Map<String, Object>> parts = List.of(Map.of("role", "user",
                "content", List.of(Map.of("type", "text", "text", "a"), Map.of("type", "text", "text", "b"))));
        assertThat(plain.render(parts, false, Map.of())).isEqualTo("user: ab\n");
    }

    @Test
    void aTemplateGetsTheTokensAndTheExtraVariables() {
        ChatTemplate t = ChatTemplates.of(
                "{{ bos_token }}{% for m in messages %}[{{ m.role }}]{{ m.content }}{% endfor %}"
                        + "{% if add_generation_prompt %}[assistant]{% endif %}{{ eos_token }}{{ extra }}",
                "<s>", "</s>");
        assertThat(t).isInstanceOf(JinjaChatTemplate.class);
        assertThat(t.render(CONVERSATION, true, Map.of("extra", "!"))).isEqualTo("<s>[system]Be brief.[user]Hi[assistant]</s>!");
        assertThat(t.render(CONVERSATION, false, Map.of())).isEqualTo("<s>[system]Be brief.[user]Hi</s>");
    }

    @Test
    void aTemplateThatDoesNotParseFailsAtConstruction() {
        assertThatThrownBy(() -> ChatTemplates.of("{% if %}", null, null))
                .isInstanceOf(TemplateException.class)
                .hasMessageContaining("line 1");
    }
}
