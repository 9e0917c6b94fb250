package dev.inferd.server.http;

import dev.inferd.engine.chat.ChatFormat;
import dev.inferd.engine.chat.RenderedPrompt;
import dev.inferd.engine.chat.output.ChatOutputParser;
import dev.inferd.engine.chat.output.OutputListener;
import dev.inferd.server.openai.ChatRequest;

/**
 * How a chat request's output is read: the template's call syntax, whether thinking goes apart,
 * and at most how many calls a reply keeps.
 */
record ChatOutput(ChatFormat format, RenderedPrompt prompt, ChatRequest request, boolean separateReasoning) {

    ChatOutputParser parser(OutputListener listener) {
        var tools = request.tools();
        if (tools.forcesCall()) {
            // The grammar writes the call in the template's syntax from the first token: no thinking.
            return new ChatOutputParser(format.toolCallFormat(), false, false, listener);
        }
        return format.outputParser(prompt, separateReasoning, tools.parsesCalls(), listener);
    }

    /** Whether the parser splits a thinking block off (a call marker inside it is thinking). */
    boolean splitsThinking() {
        return separateReasoning && format.thinks() && !request.tools().forcesCall();
    }

    /** Control tokens whose text the parser must see: the call markers, when calls are read. */
    java.util.Set<String> controlTokenText() {
        return request.tools().parsesCalls() ? ChatOutputParser.markerTokens() : java.util.Set.of();
    }

    int maxCalls() {
        return request.tools().parallelCalls() ? Integer.MAX_VALUE : 1;
    }

    /** A reply that ended normally with calls in it finished to call tools. */
    static String finishReason(String engineReason, boolean hasCalls) {
        return hasCalls && "stop".equals(engineReason) ? "tool_calls" : engineReason;
    }
}
