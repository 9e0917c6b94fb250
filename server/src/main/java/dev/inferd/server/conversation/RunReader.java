package dev.inferd.server.conversation;

import dev.inferd.engine.chat.output.ChatOutputParser;
import dev.inferd.engine.chat.output.OutputListener;
import dev.inferd.engine.chat.output.ParsedOutput;
import dev.inferd.engine.chat.output.ParsedToolCall;
import dev.inferd.engine.generate.FinishReason;
import dev.inferd.engine.generate.TokenLogprob;
import dev.inferd.server.openai.Usage;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads one run's engine output into {@link ConversationEvent}s: each choice's text goes through the
 * template's output parser (reasoning split, tool calls), calls beyond the allowed number are dropped,
 * and each call gets its id when it starts. Feed it the engine's events in order; not thread-safe.
 */
public final class RunReader {

    private final ConversationPlan plan;
    private final EventSink sink;
    private final Choice[] choices;

    RunReader(ConversationPlan plan, EventSink sink) {
        this.plan = plan;
        this.sink = sink;
        this.choices = new Choice[plan.request().n()];
        for (int i = 0; i < choices.length; i++) choices[i] = new Choice(i);
    }

    /** Generated text of one choice, with its tokens' log-probabilities when they were asked for. */
    public void text(int choice, String text, List<TokenLogprob> logprobs) {
        choices[choice].text(text, logprobs);
    }

    /** The engine ended a choice. */
    public void finish(int choice, FinishReason reason) {
        finish(choice, reason, null);
    }

    /** The engine ended a choice at {@code stopSequence}, one of the request's stop sequences (null: another end). */
    public void finish(int choice, FinishReason reason, String stopSequence) {
        choices[choice].finish(reason, stopSequence);
    }

    /** Every choice ended. */
    public void end(Usage usage) {
        sink.accept(new ConversationEvent.Completed(usage));
    }

    private final class Choice implements OutputListener {
        private final int index;
        private final ChatOutputParser parser;
        private final List<String> callIds = new ArrayList<>();
        private List<TokenLogprob> pendingLogprobs;

        Choice(int index) {
            this.index = index;
            this.parser = plan.reading().parser(this);
        }

        void text(String text, List<TokenLogprob> logprobs) {
            pendingLogprobs = plan.request().wantsLogprobs() && !logprobs.isEmpty() ? logprobs : null;
            parser.accept(text);
            if (pendingLogprobs != null) {
                sink.accept(new ConversationEvent.Logprobs(index, pendingLogprobs));
                pendingLogprobs = null;
            }
        }

        void finish(FinishReason reason, String stopSequence) {
            parser.finish();
            ParsedOutput parsed = parser.result();
            List<ToolCallOutput> calls = new ArrayList<>();
            for (ParsedToolCall call : parsed.toolCalls()) {
                if (call.index() >= callIds.size()) break;
                calls.add(new ToolCallOutput(call.index(), callIds.get(call.index()), call.name(), call.arguments(),
                        call.complete()));
            }
            for (ToolCallOutput call : calls) sink.accept(new ConversationEvent.ToolCallDone(index, call));
            StopReason stop = reason == FinishReason.LENGTH ? StopReason.LENGTH : StopReason.STOP;
            sink.accept(new ConversationEvent.ChoiceFinished(index,
                    new ChoiceOutput(parsed.content(), parsed.reasoning(), calls, stop, stopSequence)));
        }

        @Override
        public void content(String text) {
            List<TokenLogprob> logprobs = pendingLogprobs == null ? List.of() : pendingLogprobs;
            pendingLogprobs = null;
            sink.accept(new ConversationEvent.ContentDelta(index, text, logprobs));
        }

        @Override
        public void reasoning(String text) {
            sink.accept(new ConversationEvent.ReasoningDelta(index, text));
        }

        @Override
        public void toolCallStarted(int call, String name) {
            if (call >= plan.reading().maxCalls()) return;
            String id = ToolCallIds.next();
            callIds.add(id);
            sink.accept(new ConversationEvent.ToolCallStarted(index, call, id, name));
        }

        @Override
        public void toolCallArguments(int call, String fragment) {
            if (call >= plan.reading().maxCalls() || fragment.isEmpty()) return;
            sink.accept(new ConversationEvent.ToolCallArguments(index, call, fragment));
        }
    }
}
