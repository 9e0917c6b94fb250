package dev.inferd.server.anthropic;

/**
 * The events of a streamed reply, each sent as {@code event: <type>} and {@code data: <json>}, in the order
 * Anthropic documents: {@code message_start}, then per content block {@code content_block_start},
 * {@code content_block_delta}s and {@code content_block_stop}, then {@code message_delta} with the stop reason
 * and the usage, then {@code message_stop}; {@code ping} any time.
 */
public sealed interface MessageEvent {

    /** The event's name, also its {@code type} field. */
    String type();

    record MessageStart(String type, AnthropicMessage message) implements MessageEvent {
        public MessageStart(AnthropicMessage message) {
            this("message_start", message);
        }
    }

    record ContentBlockStart(String type, int index, AnthropicMessage.ContentBlock contentBlock) implements MessageEvent {
        public ContentBlockStart(int index, AnthropicMessage.ContentBlock contentBlock) {
            this("content_block_start", index, contentBlock);
        }
    }

    record ContentBlockDelta(String type, int index, Delta delta) implements MessageEvent {
        public ContentBlockDelta(int index, Delta delta) {
            this("content_block_delta", index, delta);
        }
    }

    record ContentBlockStop(String type, int index) implements MessageEvent {
        public ContentBlockStop(int index) {
            this("content_block_stop", index);
        }
    }

    /** @param usage cumulative counts; {@code output_tokens} is final here */
    record MessageDelta(String type, StopDelta delta, MessageUsage usage) implements MessageEvent {
        public MessageDelta(String stopReason, String stopSequence, MessageUsage usage) {
            this("message_delta", new StopDelta(stopReason, stopSequence), usage);
        }
    }

    record StopDelta(String stopReason, String stopSequence) {
    }

    record MessageStop(String type) implements MessageEvent {
        public MessageStop() {
            this("message_stop");
        }
    }

    record Ping(String type) implements MessageEvent {
        public Ping() {
            this("ping");
        }
    }

    /** What a {@code content_block_delta} adds to its block. */
    sealed interface Delta permits TextDelta, InputJsonDelta, ThinkingDelta, SignatureDelta {
    }

    record TextDelta(String type, String text) implements Delta {
        public TextDelta(String text) {
            this("text_delta", text);
        }
    }

    /** A piece of a tool call's input as JSON text; the pieces of one block concatenated are its input. */
    record InputJsonDelta(String type, String partialJson) implements Delta {
        public InputJsonDelta(String partialJson) {
            this("input_json_delta", partialJson);
        }
    }

    record ThinkingDelta(String type, String thinking) implements Delta {
        public ThinkingDelta(String thinking) {
            this("thinking_delta", thinking);
        }
    }

    record SignatureDelta(String type, String signature) implements Delta {
        public SignatureDelta(String signature) {
            this("signature_delta", signature);
        }
    }
}
