package dev.inferd.engine.generate;

import dev.inferd.engine.Fixtures;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.tokenizer.Tokenizer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ChatPromptTest {

    @Test
    void phi3TemplateGivesOneBosAndSpecialTokens() throws IOException {
        try (GGUFFile gguf = GGUFFile.open(Fixtures.require("tokenizers/ggml-vocab-phi-3.gguf"))) {
            Tokenizer tokenizer = Tokenizer.fromGGUF(gguf);
            ChatPrompt prompt = ChatPrompt.forModel(gguf, tokenizer);
            List<ChatMessage> chat = List.of(new ChatMessage("user", "Hi there"));

            assertThat(prompt.render(chat)).isEqualTo("<s><|user|>\nHi there<|end|>\n<|assistant|>\n");
            int[] tokens = prompt.tokens(chat);
            // The template writes the BOS itself; the tokenizer must not add a second one.
            assertThat(tokens[0]).isEqualTo(tokenizer.bos());
            assertThat(tokens[1]).isNotEqualTo(tokenizer.bos());
            int user = tokenizer.encode("<|user|>", false, true)[0];
            int end = tokenizer.encode("<|end|>", false, true)[0];
            assertThat(tokenizer.isControl(user)).isTrue();
            assertThat(Arrays.stream(tokens).boxed().toList()).contains(user, end);
            assertThat(tokenizer.decode(tokens)).contains("Hi there");
        }
    }

    @Test
    void modelWithoutTemplateUsesThePlainFallback() throws IOException {
        try (GGUFFile gguf = GGUFFile.open(Fixtures.storiesModel())) {
            Tokenizer tokenizer = Tokenizer.fromGGUF(gguf);
            ChatPrompt prompt = ChatPrompt.forModel(gguf, tokenizer);
            String text = prompt.render(List.of(new ChatMessage("system", "Be brief."), new ChatMessage("user", "Hello")));
            assertThat(text).contains("Be brief.").contains("Hello").endsWith("assistant:");
            assertThat(prompt.tokens(List.of(new ChatMessage("user", "Hello")))[0]).isEqualTo(tokenizer.bos());
        }
    }

    @Test
    void aTemplateThatRejectsTheConversationIsAnIllegalArgument() throws IOException {
        try (GGUFFile gguf = GGUFFile.open(Fixtures.storiesModel())) {
            Tokenizer tokenizer = Tokenizer.fromGGUF(gguf);
            ChatPrompt prompt = new ChatPrompt(
                    "{% if messages[0]['role'] == 'system' %}{{ raise_exception('System role not supported') }}{% endif %}x",
                    tokenizer);
            assertThatThrownBy(() -> prompt.tokens(List.of(new ChatMessage("system", "s"))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("System role not supported");
        }
    }
}
