package dev.inferd.engine.chat;

import dev.inferd.engine.Fixtures;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A final assistant turn continued (a prefill), and whether a prompt of plain turns ends inside thinking:
 * on templates written here and on the real templates of the fixtures.
 */
class ChatFormatContinuationTest {
    private static final String CHATML = "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content | trim }}<|im_end|>\n"
            + "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}";
    /** Opens the thinking block in its generation prompt, as DeepSeek-R1's does. */
    private static final String OPENS_THINKING = "{% for m in messages %}<|{{ m.role }}|>{{ m.content }}{% endfor %}"
            + "{% if add_generation_prompt %}<|assistant|><think>\n{% endif %}";
    /** Leaves every assistant turn out. */
    private static final String DROPS_ASSISTANT = "{% for m in messages %}{% if m.role != 'assistant' %}<|{{ m.role }}|>"
            + "{{ m.content }}{% endif %}{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}";

    private static final List<Message> PREFILLED = List.of(Message.user("Name as JSON"), Message.assistant("{\"name\": "));

    @Test
    void theLastAssistantTurnStaysOpenWithItsTextAsGiven() {
        RenderedPrompt out = ChatFormat.of(CHATML, "", "").renderContinuing(PREFILLED, PromptOptions.NONE);
        // no end of turn after the prefill, no new generation prompt; the template's trim left the prefill alone
        assertThat(out.text()).isEqualTo("<|im_start|>user\nName as JSON<|im_end|>\n<|im_start|>assistant\n{\"name\": ");
        assertThat(out.opensReasoning()).isFalse();
    }

    @Test
    void aTemplateThatLeavesTheTurnOutGetsTheGenerationPromptAndThePrefill() {
        RenderedPrompt out = ChatFormat.of(DROPS_ASSISTANT, "", "").renderContinuing(PREFILLED, PromptOptions.NONE);
        assertThat(out.text()).isEqualTo("<|user|>Name as JSON<|assistant|>{\"name\": ");
    }

    @Test
    void theFormatWithoutATemplateContinuesTheAssistantLine() {
        RenderedPrompt out = ChatFormat.of(null, "", "").renderContinuing(PREFILLED, PromptOptions.NONE);
        assertThat(out.text()).isEqualTo("user: Name as JSON\nassistant: {\"name\": ");
    }

    @Test
    void aPrefillThatOpensThinkingContinuesInIt() {
        RenderedPrompt out = ChatFormat.of(OPENS_THINKING, "", "").renderContinuing(
                List.of(Message.user("Hi"), Message.assistant("<think>\nFirst,")), PromptOptions.NONE);
        assertThat(out.text()).isEqualTo("<|user|>Hi<|assistant|><think>\nFirst,");
        assertThat(out.opensReasoning()).isTrue();
    }

    @Test
    void onlyAnAssistantTurnOfTextCanBeContinued() {
        ChatFormat format = ChatFormat.of(CHATML, "", "");
        assertThatThrownBy(() -> format.renderContinuing(List.of(Message.user("Hi")), PromptOptions.NONE))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> format.renderContinuing(List.of(Message.user("Hi"),
                Message.assistant(null, List.of(new ToolCall("c1", "f", "{}")))), PromptOptions.NONE))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void plainTurnsEndInsideThinkingWhenTheGenerationPromptOpensIt() {
        List<Message> turns = List.of(Message.developer("Be brief."), Message.user("Hi"));
        assertThat(ChatFormat.of(OPENS_THINKING, "", "").plainPromptOpensReasoning(turns)).isTrue();
        assertThat(ChatFormat.of(CHATML, "", "").plainPromptOpensReasoning(turns)).isFalse();
        assertThat(ChatFormat.of(null, "", "").plainPromptOpensReasoning(turns)).isFalse();
    }

    @Test
    void deepSeekR1sGenerationPromptOpensThinking() throws IOException {
        String source = Files.readString(Fixtures.require("chat-templates/deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja"));
        ChatFormat format = ChatFormat.of(source, "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>");
        assertThat(format.plainPromptOpensReasoning(List.of(Message.user("Hi")))).isTrue();
        assertThat(format.render(List.of(Message.user("Hi")), PromptOptions.NONE).opensReasoning()).isTrue();
    }

    /**
     * On the real templates (firefunction's needs a {@code functions} variable to render at all): the prompt is the finished conversation (rendered without a generation prompt) cut
     * right after the prefill, so the model sees its turn exactly as the template writes it, still open.
     */
    @ParameterizedTest
    @ValueSource(strings = {
            "CohereForAI-c4ai-command-r-plus-tool_use.jinja",
            "CohereForAI-c4ai-command-r7b-12-2024-tool_use.jinja",
            "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use.jinja",
            "NousResearch-Hermes-3-Llama-3.1-8B-tool_use.jinja",
            "Qwen-Qwen2.5-7B-Instruct.jinja",
            "deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja",
            "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B.jinja",
            "google-gemma-2-2b-it.jinja",
            "llama-cpp-deepseek-r1.jinja",
            "meetkai-functionary-medium-v3.1.jinja",
            "meetkai-functionary-medium-v3.2.jinja",
            "meta-llama-Llama-3.1-8B-Instruct.jinja",
            "meta-llama-Llama-3.2-3B-Instruct.jinja",
            "meta-llama-Llama-3.3-70B-Instruct.jinja",
            "microsoft-Phi-3.5-mini-instruct.jinja",
            "mistralai-Mistral-Nemo-Instruct-2407.jinja"})
    void aRealTemplatesTurnIsCutAfterThePrefill(String file) throws IOException {
        ChatFormat format = ChatFormat.of(Files.readString(Fixtures.require("chat-templates/" + file)), "<s>", "</s>");
        List<Message> conversation = List.of(Message.user("What is 2+2?"), Message.assistant("The answer is"));
        String continuing = format.renderContinuing(conversation, PromptOptions.NONE).text();
        String finished = format.render(conversation, PromptOptions.NONE, false);
        assertThat(continuing).endsWith("The answer is");
        assertThat(finished).startsWith(continuing);
    }
}
