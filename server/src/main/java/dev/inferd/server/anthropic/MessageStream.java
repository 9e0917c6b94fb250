package dev.inferd.server.anthropic;

import dev.inferd.server.conversation.ChoiceOutput;
import dev.inferd.server.conversation.ConversationEvent;

import java.util.ArrayList;
import java.util.List;

/**
 * The events of one streamed reply, from the pipeline's events: a content block opens when the kind of output
 * changes (thinking, text, a tool call) and closes before the next one opens or the reply ends; a thinking block
 * ends with its {@code signature_delta}. Not thread-safe: one per stream.
 */
public final class MessageStream {

    private enum Kind { NONE, TEXT, THINKING, TOOL_USE }

    private final String id;
    private final String model;
    private final boolean omitThinking;
    private Kind open = Kind.NONE;
    private int index = -1;
    private final StringBuilder thinking = new StringBuilder();
    private ChoiceOutput finished;

    /** @param omitThinking {@code thinking.display: "omitted"}: thinking blocks carry only their signature */
    public MessageStream(String id, String model, boolean omitThinking) {
        this.id = id;
        this.model = model;
        this.omitThinking = omitThinking;
    }

    /** {@code message_start} (the prompt's tokens as its input count) and a first {@code ping}. */
    public List<MessageEvent> start(int promptTokens) {
        return List.of(new MessageEvent.MessageStart(AnthropicMessage.started(id, model,
                MessageUsage.of(promptTokens, 0, 0))), new MessageEvent.Ping());
    }

    /** The wire events for one pipeline event (none for some). */
    public List<MessageEvent> on(ConversationEvent event) {
        List<MessageEvent> out = new ArrayList<>(3);
        switch (event) {
            case ConversationEvent.ContentDelta d -> {
                if (d.text().isEmpty()) break;
                open(Kind.TEXT, new AnthropicMessage.Text(""), out);
                out.add(new MessageEvent.ContentBlockDelta(index, new MessageEvent.TextDelta(d.text())));
            }
            case ConversationEvent.ReasoningDelta r -> {
                if (r.text().isEmpty()) break;
                open(Kind.THINKING, new AnthropicMessage.Thinking("", ""), out);
                thinking.append(r.text());
                if (!omitThinking) out.add(new MessageEvent.ContentBlockDelta(index, new MessageEvent.ThinkingDelta(r.text())));
            }
            case ConversationEvent.ToolCallStarted s -> {
                close(out);
                open(Kind.TOOL_USE, new AnthropicMessage.ToolUse(AnthropicIds.toolUse(s.id()), s.name(), java.util.Map.of()), out);
            }
            case ConversationEvent.ToolCallArguments a -> {
                if (open == Kind.TOOL_USE) {
                    out.add(new MessageEvent.ContentBlockDelta(index, new MessageEvent.InputJsonDelta(a.fragment())));
                }
            }
            case ConversationEvent.ToolCallDone done -> {
                // its input went out in fragments; the block closes when the next opens or the reply ends
            }
            case ConversationEvent.Logprobs l -> {
                // Anthropic's API has no log-probabilities
            }
            case ConversationEvent.ChoiceFinished f -> {
                close(out);
                finished = f.output();
            }
            case ConversationEvent.Completed c -> {
                ChoiceOutput output = finished;
                boolean calledTools = output != null && !output.completeCalls().isEmpty();
                out.add(new MessageEvent.MessageDelta(output == null ? "end_turn" : MessageReplies.stopReason(output, calledTools),
                        output == null ? null : output.stopSequence(), MessageReplies.usage(c.usage())));
                out.add(new MessageEvent.MessageStop());
            }
        }
        return out;
    }

    /** Opens a block of {@code kind} unless one is open already. */
    private void open(Kind kind, AnthropicMessage.ContentBlock block, List<MessageEvent> out) {
        if (open == kind && kind != Kind.TOOL_USE) return;
        close(out);
        open = kind;
        index++;
        out.add(new MessageEvent.ContentBlockStart(index, block));
    }

    private void close(List<MessageEvent> out) {
        if (open == Kind.NONE) return;
        if (open == Kind.THINKING) {
            out.add(new MessageEvent.ContentBlockDelta(index, new MessageEvent.SignatureDelta(
                    ThinkingSignature.of(thinking.toString()))));
            thinking.setLength(0);
        }
        out.add(new MessageEvent.ContentBlockStop(index));
        open = Kind.NONE;
    }
}
