package dev.inferd.server.anthropic;

import dev.inferd.engine.chat.Message;
import dev.inferd.server.openai.ChatTools;

import java.util.List;

/**
 * A validated {@code POST /v1/messages} request (or the body of {@code /v1/messages/count_tokens}), in the
 * terms the conversation pipeline takes: the conversation as the chat template renders it, the tools, the
 * sampling fields and the cap.
 *
 * @param conversation the {@code system} prompt first (when given), then the turns; tool results are tool messages;
 *                     a final assistant turn of text is a prefill the reply continues
 * @param tools        the custom tools and how the model may use them; server tools this server cannot run are left out
 * @param maxTokens    the client's cap on generated tokens (clamped to the room the context leaves), 0 when counting
 * @param topK         null when not given (the engine then samples from the whole vocabulary)
 */
public record MessagesRequest(String model, List<Message> conversation, ChatTools tools, int maxTokens,
                              List<String> stopSequences, float temperature, float topP, Integer topK, boolean stream,
                              Thinking thinking) {

    public MessagesRequest {
        conversation = List.copyOf(conversation);
        stopSequences = List.copyOf(stopSequences);
    }

    /**
     * The {@code thinking} field. {@link Mode#OFF} (also when absent) asks a reasoning model not to think, where
     * its template can be told so; the others let it think. {@code budgetTokens} is what {@code enabled} asked for:
     * the most tokens the thinking may take before the engine closes it.
     *
     * @param omitted {@code display: "omitted"}: thinking blocks carry their signature but no text
     */
    public record Thinking(Mode mode, Integer budgetTokens, boolean omitted) {
        public static final Thinking OFF = new Thinking(Mode.OFF, null, false);

        public enum Mode { OFF, ENABLED, ADAPTIVE }

        /** The template's {@code enable_thinking}: false when thinking is off, else the template's own default. */
        public Boolean enableThinking() {
            return mode == Mode.OFF ? Boolean.FALSE : null;
        }
    }
}
