package dev.inferd.server.conversation;

import dev.inferd.engine.chat.ChatFormat;
import dev.inferd.engine.chat.RenderedPrompt;
import dev.inferd.engine.chat.output.ChatOutputParser;
import dev.inferd.engine.chat.output.OutputListener;
import dev.inferd.server.openai.ChatTools;

import java.util.Set;

/**
 * How a conversation's output is read: the template's call syntax, whether thinking goes apart,
 * and at most how many calls a reply keeps.
 */
public record OutputReading(ChatFormat format, RenderedPrompt prompt, ChatTools tools, boolean separateReasoning) {

    ChatOutputParser parser(OutputListener listener) {
        if (tools.forcesCall()) {
            // The grammar writes the call in the template's syntax from the first token: no thinking.
            return new ChatOutputParser(format.toolCallFormat(), false, false, listener);
        }
        return format.outputParser(prompt, separateReasoning, tools.parsesCalls(), listener);
    }

    /** Whether the parser splits a thinking block off (a call marker inside it is thinking). */
    boolean splitsThinking() {
        return separateReasoning && format.thinks() && !tools.forcesCall();
    }

    /** Control tokens whose text the parser must see: the call markers, when calls are read. */
    Set<String> controlTokenText() {
        return tools.parsesCalls() ? ChatOutputParser.markerTokens() : Set.of();
    }

    int maxCalls() {
        return tools.parallelCalls() ? Integer.MAX_VALUE : 1;
    }
}
