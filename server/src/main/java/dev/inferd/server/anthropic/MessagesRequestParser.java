package dev.inferd.server.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inferd.engine.chat.Message;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.ChatTools;
import dev.inferd.server.openai.Fields;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns a Messages API body into a {@link MessagesRequest}, or a 400 naming the field. Fields this server
 * cannot act on and that change nothing a client relies on are read past: {@code cache_control} anywhere,
 * {@code context_management}, {@code output_config}, {@code metadata}, {@code service_tier},
 * {@code container}, {@code mcp_servers}, citations. Images and documents are refused: the models read text.
 */
public final class MessagesRequestParser {

    private static final int MAX_STOP_SEQUENCES = 8191;

    private MessagesRequestParser() {
    }

    /** A {@code POST /v1/messages} body without beta features: {@code max_tokens} is required. */
    public static MessagesRequest parse(JsonNode body) {
        return parse(body, AnthropicBetas.NONE);
    }

    /** A {@code POST /v1/messages} body under the request's {@code anthropic-beta} features. */
    public static MessagesRequest parse(JsonNode body, AnthropicBetas betas) {
        return parse(body, true, betas);
    }

    /** A {@code POST /v1/messages/count_tokens} body: the same fields, without {@code max_tokens}. */
    public static MessagesRequest parseForCounting(JsonNode body) {
        return parse(body, false, AnthropicBetas.NONE);
    }

    private static MessagesRequest parse(JsonNode body, boolean generating, AnthropicBetas betas) {
        Fields f = Fields.ofBody(body);
        String model = f.requiredString("model");
        List<Message> conversation = new ArrayList<>();
        f.node("system").ifPresent(system -> {
            String text = systemText(system);
            if (!text.isEmpty()) conversation.add(Message.system(text));
        });
        conversation.addAll(MessageBlocks.turns(f.required("messages")));
        List<Message> turns = SystemTurns.fold(conversation);
        int maxTokens = generating ? f.intValue("max_tokens", 1, Integer.MAX_VALUE)
                .orElseThrow(() -> ApiError.missing("max_tokens")) : 0;
        ChatTools tools = ToolFields.tools(f);
        float temperature = f.number("temperature", 0, 1).orElse(1.0).floatValue();
        float topP = f.number("top_p", 0, 1).orElse(1.0).floatValue();
        Integer topK = f.intValue("top_k", 0, Integer.MAX_VALUE).filter(k -> k > 0).orElse(null);
        MessagesRequest.Thinking thinking = thinking(f, generating && !betas.interleavedThinking() ? maxTokens : 0);
        checkPrefill(turns, thinking);
        return new MessagesRequest(model, turns, tools, maxTokens, stopSequences(f), temperature, topP, topK,
                generating && f.bool("stream", false), thinking);
    }

    /**
     * A final assistant turn of text is a prefill the reply continues. As at Anthropic, it may not end in
     * whitespace (the model would continue after a space it did not choose) and it cannot come with thinking,
     * which would have to come before the text the client already wrote.
     */
    private static void checkPrefill(List<Message> turns, MessagesRequest.Thinking thinking) {
        Message last = turns.getLast();
        if (last.role() != Message.Role.ASSISTANT || !last.toolCalls().isEmpty() || last.content() == null
                || last.content().isEmpty()) {
            return;
        }
        if (last.content().isBlank() || Character.isWhitespace(last.content().codePointBefore(last.content().length()))) {
            throw ApiError.invalid("messages", "Invalid 'messages': the final assistant content cannot end with "
                    + "trailing whitespace.");
        }
        if (thinking.mode() != MessagesRequest.Thinking.Mode.OFF) {
            throw ApiError.invalid("messages", "Invalid 'messages': a final assistant message (a prefill the reply "
                    + "continues) cannot be combined with thinking; leave 'thinking' out or set it to 'disabled'.");
        }
    }

    private static String systemText(JsonNode system) {
        if (system.isTextual()) return system.textValue();
        if (!system.isArray()) {
            throw ApiError.invalidType("system", "a string or an array of text blocks", Fields.describe(system));
        }
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < system.size(); i++) {
            Fields block = Fields.ofObject(system.get(i), "system[" + i + "]");
            String type = block.requiredString("type");
            if (!"text".equals(type)) {
                throw ApiError.invalid(block.path("type"), "Invalid value for '" + block.path("type") + "': '" + type
                        + "'. System prompt blocks must be of type 'text'.");
            }
            texts.add(block.requiredString("text"));
        }
        return String.join("\n", texts);
    }

    private static List<String> stopSequences(Fields f) {
        return f.node("stop_sequences").map(node -> {
            if (!node.isArray()) throw ApiError.invalidType("stop_sequences", "an array of strings", Fields.describe(node));
            if (node.size() > MAX_STOP_SEQUENCES) {
                throw ApiError.invalid("stop_sequences", "Invalid 'stop_sequences': at most " + MAX_STOP_SEQUENCES
                        + " are allowed, but got " + node.size() + ".");
            }
            List<String> stops = new ArrayList<>();
            for (int i = 0; i < node.size(); i++) {
                JsonNode s = node.get(i);
                if (!s.isTextual()) throw ApiError.invalidType("stop_sequences[" + i + "]", "a string", Fields.describe(s));
                // An empty or blank sequence would stop every reply at once; Anthropic refuses it too.
                if (s.textValue().isBlank()) {
                    throw ApiError.invalid("stop_sequences[" + i + "]", "Invalid 'stop_sequences[" + i
                            + "]': stop sequences must contain non-whitespace characters.");
                }
                stops.add(s.textValue());
            }
            return List.copyOf(stops);
        }).orElse(List.of());
    }

    /**
     * @param budgetBelow a budget must be below this ({@code max_tokens}), or 0 when it may be any size: under
     *                    interleaved thinking, where Anthropic lets the budget span a turn's thinking blocks, and
     *                    here {@code max_tokens} bounds the one reply's thinking instead
     */
    private static MessagesRequest.Thinking thinking(Fields f, int budgetBelow) {
        return f.node("thinking").map(node -> {
            Fields t = Fields.ofObject(node, "thinking");
            String type = t.requiredString("type");
            boolean omitted = t.string("display").map(d -> switch (d) {
                case "omitted" -> true;
                case "summarized", "full" -> false;
                default -> throw ApiError.invalid("thinking.display", "Invalid value for 'thinking.display': '" + d
                        + "'. Supported values are: 'summarized', 'full' and 'omitted'.");
            }).orElse(false);
            return switch (type) {
                case "disabled" -> MessagesRequest.Thinking.OFF;
                case "adaptive" -> new MessagesRequest.Thinking(MessagesRequest.Thinking.Mode.ADAPTIVE, null, omitted);
                case "enabled" -> {
                    int budget = t.intValue("budget_tokens", 1024, Integer.MAX_VALUE)
                            .orElseThrow(() -> ApiError.missing("thinking.budget_tokens"));
                    if (budgetBelow > 0 && budget >= budgetBelow) {
                        throw ApiError.invalid("thinking.budget_tokens", "Invalid 'thinking.budget_tokens': `max_tokens` "
                                + "must be greater than `thinking.budget_tokens`.");
                    }
                    yield new MessagesRequest.Thinking(MessagesRequest.Thinking.Mode.ENABLED, budget, omitted);
                }
                default -> throw ApiError.invalid("thinking.type", "Invalid value for 'thinking.type': '" + type
                        + "'. Supported values are: 'enabled', 'disabled' and 'adaptive'.");
            };
        }).orElse(MessagesRequest.Thinking.OFF);
    }
}
