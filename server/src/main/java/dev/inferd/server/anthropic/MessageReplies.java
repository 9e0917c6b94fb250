package dev.inferd.server.anthropic;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.inferd.server.conversation.ChoiceOutput;
import dev.inferd.server.conversation.StopReason;
import dev.inferd.server.conversation.ToolCallOutput;
import dev.inferd.server.openai.Usage;
import dev.inferd.server.openai.WireJson;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A whole reply of the pipeline as Anthropic's {@code message}: thinking, then text, then tool calls. */
public final class MessageReplies {

    private MessageReplies() {
    }

    /** @param omitThinking {@code thinking.display: "omitted"}: the block keeps its signature, not its text */
    public static AnthropicMessage message(String id, String model, ChoiceOutput output, Usage usage,
                                           boolean omitThinking) {
        List<AnthropicMessage.ContentBlock> content = new ArrayList<>();
        if (output.reasoning() != null) {
            content.add(new AnthropicMessage.Thinking(omitThinking ? "" : output.reasoning(),
                    ThinkingSignature.of(output.reasoning())));
        }
        if (output.content() != null && !output.content().isEmpty()) {
            content.add(new AnthropicMessage.Text(output.content()));
        }
        List<ToolCallOutput> calls = output.completeCalls();
        for (ToolCallOutput call : calls) {
            content.add(new AnthropicMessage.ToolUse(AnthropicIds.toolUse(call.id()), call.name(), input(call.arguments())));
        }
        return AnthropicMessage.of(id, model, content, stopReason(output, !calls.isEmpty()), output.stopSequence(),
                usage(usage));
    }

    static String stopReason(ChoiceOutput output, boolean calledTools) {
        return StopReasons.of(output.engineStop() == StopReason.LENGTH, output.stopSequence(), calledTools);
    }

    public static MessageUsage usage(Usage usage) {
        return MessageUsage.of(usage.promptTokens(), usage.promptTokensDetails().cachedTokens(), usage.completionTokens());
    }

    /** A complete call's arguments as the object {@code input} is; arguments that are no object give an empty one. */
    static Object input(String arguments) {
        try {
            Object tree = WireJson.mapper().readValue(arguments, Object.class);
            return tree instanceof Map<?, ?> ? tree : Map.of();
        } catch (JsonProcessingException e) {
            return Map.of();
        }
    }
}
