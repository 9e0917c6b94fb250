package dev.inferd.server.conversation;

import dev.inferd.engine.chat.ChatFormat;
import dev.inferd.engine.chat.Message;
import dev.inferd.engine.chat.PromptOptions;
import dev.inferd.engine.chat.RenderedPrompt;
import dev.inferd.engine.generate.ChatMessage;
import dev.inferd.engine.generate.GenerationRequest;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.engine.sample.TokenConstraint;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.ChatTools;
import dev.inferd.server.openai.EngineRequests;
import dev.inferd.server.openai.OutputConstraints;

import java.util.List;

/**
 * Where a conversation becomes the engine's request, for every protocol: the template renders the
 * turns and tools, the prompt is tokenized within the context, the output cap is checked or clamped,
 * tools and output formats become a grammar constraint, and the plan keeps how the output is to be
 * read back.
 */
public final class ConversationPlanner {

    private ConversationPlanner() {
    }

    /**
     * @param separateReasoning the server's setting; a request may turn the split off for itself
     * @param formatParam       the request field holding the output format, named by errors about it
     * @param capParam          the request field holding the output cap, named by errors about it
     */
    public static ConversationPlan plan(ConversationRequest request, TextGenerator generator, boolean separateReasoning,
                                        String formatParam, String capParam) {
        ChatFormat format = generator.chatFormat();
        String param = request.promptParam();
        RenderedPrompt rendered;
        int[] prompt;
        if (request.needsChatFormat()) {
            var options = new PromptOptions(request.tools().choice() == ChatTools.Choice.NONE ? List.of()
                    : request.tools().definitions(), request.enableThinking(), request.templateVariables());
            rendered = render(format, request.messages(), options, param);
            prompt = EngineRequests.tokenize(limit -> generator.chatPrompt(rendered, limit), generator, param);
        } else {
            rendered = new RenderedPrompt("", false);
            List<ChatMessage> turns = plainTurns(request.messages());
            prompt = EngineRequests.tokenize(limit -> generator.chatPrompt(turns, limit), generator, param);
        }
        var reading = new OutputReading(format, rendered, request.tools(),
                separateReasoning && request.separateReasoning());
        TokenConstraint.Factory constraint = OutputConstraints.forOutput(request.tools(), request.format(),
                request.freeJsonLayout(), generator, reading.splitsThinking(), rendered.opensReasoning(), formatParam);
        GenerationRequest engineRequest = EngineRequests.build(request.sampling(), request.stop(), request.n(),
                        maxTokens(request, prompt, generator), request.logprobs(), prompt, generator, constraint, capParam)
                .withControlTokenText(reading.controlTokenText());
        return new ConversationPlan(request, engineRequest, reading);
    }

    /** The client's cap, or all the room the context leaves; a cap beyond the room is refused or clamped. */
    private static int maxTokens(ConversationRequest request, int[] prompt, TextGenerator generator) {
        int context = generator.description().contextLength();
        String param = request.promptParam();
        if (prompt.length >= context) throw ApiError.contextLengthExceeded(param, context, prompt.length);
        int room = context - prompt.length;
        Integer cap = request.maxTokens();
        if (cap == null) return room;
        if (cap > room && request.capPolicy() == CapPolicy.REJECT) {
            throw ApiError.completionBeyondContext(param, context, prompt.length, cap);
        }
        return Math.min(cap, room);
    }

    /** Turns without tool calls as the generator's own chat prompt takes them; templates rarely know "developer". */
    private static List<ChatMessage> plainTurns(List<Message> messages) {
        return messages.stream().map(m -> new ChatMessage(
                m.role() == Message.Role.DEVELOPER ? "system" : m.role().wireName(),
                m.content() == null ? "" : m.content())).toList();
    }

    private static RenderedPrompt render(ChatFormat format, List<Message> messages, PromptOptions options,
                                         String param) {
        try {
            return format.render(messages, options);
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid(param, "Invalid '" + param + "': " + e.getMessage());
        }
    }
}
