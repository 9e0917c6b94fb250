package dev.inferd.server.conversation;

import dev.inferd.engine.chat.ChatFormat;
import dev.inferd.engine.chat.Message;
import dev.inferd.engine.chat.PromptOptions;
import dev.inferd.engine.chat.RenderedPrompt;
import dev.inferd.engine.chat.output.ThinkingBudget;
import dev.inferd.engine.generate.ChatMessage;
import dev.inferd.engine.generate.GenerationRequest;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.engine.grammar.TokenVocabulary;
import dev.inferd.engine.sample.TokenConstraint;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.ChatTools;
import dev.inferd.server.openai.EngineRequests;
import dev.inferd.server.openai.OutputConstraints;
import dev.inferd.server.openai.ResponseFormat;

import java.util.List;

/**
 * Where a conversation becomes the engine's request, for every protocol: the template renders the
 * turns and tools (a final assistant turn left open when the reply continues it), the prompt is tokenized
 * within the context, the output cap is checked or clamped, tools, output formats and a thinking budget
 * become the output's constraint, and the plan keeps how the output is to be read back.
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
        String prefill = request.prefill();
        if (prefill != null) checkPrefill(request, formatParam);
        List<Message> turns = request.turns();
        RenderedPrompt rendered;
        int[] prompt;
        if (request.needsChatFormat()) {
            var options = new PromptOptions(request.tools().choice() == ChatTools.Choice.NONE ? List.of()
                    : request.tools().definitions(), request.enableThinking(), request.templateVariables());
            rendered = render(format, turns, options, prefill != null, param);
            prompt = EngineRequests.tokenize(limit -> generator.chatPrompt(rendered, limit), generator, param);
        } else {
            // The generator renders these itself; the template still says whether its generation prompt opens thinking.
            rendered = new RenderedPrompt("", format.plainPromptOpensReasoning(turns));
            List<ChatMessage> plain = plainTurns(turns);
            prompt = EngineRequests.tokenize(limit -> generator.chatPrompt(plain, limit), generator, param);
        }
        var reading = new OutputReading(format, rendered, request.tools(),
                separateReasoning && request.separateReasoning());
        TokenConstraint.Factory constraint = OutputConstraints.forOutput(request.tools(), request.format(),
                request.freeJsonLayout(), generator, reading.splitsThinking(), rendered.opensReasoning(), formatParam);
        constraint = aroundThinking(constraint, request, generator, rendered, reading.splitsThinking());
        GenerationRequest engineRequest = EngineRequests.build(request.sampling(), request.stop(), request.n(),
                        maxTokens(request, prompt, generator), request.logprobs(), prompt, generator, constraint, capParam)
                .withControlTokenText(reading.controlTokenText());
        return new ConversationPlan(request, engineRequest, reading);
    }

    /**
     * A prefill is continued as text the model writes freely: a grammar that writes a call or a JSON document from
     * the reply's first token would start over inside it.
     */
    private static void checkPrefill(ConversationRequest request, String formatParam) {
        String param = request.promptParam();
        if (request.tools().forcesCall()) {
            throw ApiError.invalid(param, "Invalid '" + param + "': a final assistant message (a prefill the reply "
                    + "continues) cannot be combined with a 'tool_choice' that forces a call.");
        }
        if (!(request.format() instanceof ResponseFormat.Text)) {
            throw ApiError.invalid(param, "Invalid '" + param + "': a final assistant message (a prefill the reply "
                    + "continues) cannot be combined with a JSON '" + formatParam + "'.");
        }
    }

    /**
     * The output's constraint around its thinking block. A thinking budget: after that many tokens of thinking the
     * engine writes the closing tag. A request that turned thinking off ({@code enable_thinking: false}) has a
     * budget of nothing, for the templates that have no such switch and open the block all the same. A JSON format
     * holds the answer only, after the thinking (which goes to the reasoning channel), as vLLM's structured outputs
     * under a reasoning parser do; where the thinking stays in the content, the JSON starts at the first token.
     * Only where the model thinks in a block of its own (not under a forced call, which is written from the first
     * token), and not on a generator that cannot be constrained.
     */
    private static TokenConstraint.Factory aroundThinking(TokenConstraint.Factory constraint, ConversationRequest request,
                                                          TextGenerator generator, RenderedPrompt rendered,
                                                          boolean splitsThinking) {
        Integer budget = Boolean.FALSE.equals(request.enableThinking()) ? Integer.valueOf(0) : request.thinkingBudget();
        TokenVocabulary vocabulary = generator.vocabulary();
        if (!generator.chatFormat().thinks() || request.tools().forcesCall() || vocabulary == null) return constraint;
        if (request.format() instanceof ResponseFormat.Text) {
            return budget == null ? constraint
                    : ThinkingBudget.factory(budget, vocabulary, rendered.opensReasoning(), constraint);
        }
        if (!splitsThinking || constraint == null) return constraint;
        return ThinkingBudget.answerFactory(budget == null ? Integer.MAX_VALUE : budget, vocabulary,
                rendered.opensReasoning(), constraint);
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
                                         boolean continuing, String param) {
        try {
            return continuing ? format.renderContinuing(messages, options) : format.render(messages, options);
        } catch (IllegalArgumentException e) {
            throw ApiError.invalid(param, "Invalid '" + param + "': " + e.getMessage());
        }
    }
}
