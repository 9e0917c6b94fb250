package dev.inferd.engine.generate;

import dev.inferd.engine.Fixtures;
import dev.inferd.engine.chat.Message;
import dev.inferd.engine.chat.PromptOptions;
import dev.inferd.engine.chat.RenderedPrompt;
import dev.inferd.engine.chat.ToolCall;
import dev.inferd.engine.chat.ToolDefinition;
import dev.inferd.engine.chat.output.ToolCallFormat;
import dev.inferd.engine.gguf.GGUFFile;
import dev.inferd.engine.tokenizer.Tokenizer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ChatPromptToolsTest {

    @Test
    void aConversationWithToolsBecomesOnePromptWithOneBos() throws IOException {
        try (GGUFFile gguf = GGUFFile.open(Fixtures.require("tokenizers/ggml-vocab-phi-3.gguf"))) {
            Tokenizer tokenizer = Tokenizer.fromGGUF(gguf);
            ChatPrompt prompt = ChatPrompt.forModel(gguf, tokenizer);
            assertThat(prompt.format().toolCallFormat()).isEqualTo(ToolCallFormat.GENERIC);

            RenderedPrompt rendered = prompt.format().render(List.of(
                    Message.developer("Be brief."),
                    Message.user("Weather in Paris?"),
                    Message.assistant(null, List.of(new ToolCall("call_1", "get_weather", "{\"city\": \"Paris\"}"))),
                    Message.tool("call_1", "sunny")),
                    PromptOptions.withTools(List.of(new ToolDefinition("get_weather", "Get the weather", null))));
            // This Phi-3 template leaves system messages out, so the system text joins the user turn.
            assertThat(prompt.format().foldsSystemIntoUser()).isTrue();
            assertThat(rendered.text()).startsWith("<s><|user|>\nBe brief.\n\n# Tools\n")
                    .contains("<|assistant|>\n{\"tool_calls\": [{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]}<|end|>\n"
                            + "<|user|>\nResult of get_weather:\nsunny<|end|>\n")
                    .endsWith("<|assistant|>\n");
            int[] tokens = prompt.tokens(rendered);
            assertThat(tokens[0]).isEqualTo(tokenizer.bos());
            assertThat(tokens[1]).isNotEqualTo(tokenizer.bos());
        }
    }
}
