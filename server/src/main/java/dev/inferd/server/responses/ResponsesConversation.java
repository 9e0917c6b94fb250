package dev.inferd.server.responses;

import com.fasterxml.jackson.databind.JsonNode;
import dev.inferd.engine.chat.Message;
import dev.inferd.server.conversation.CapPolicy;
import dev.inferd.server.conversation.ConversationRequest;
import dev.inferd.server.openai.SamplingFields;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Where a Responses request becomes the pipeline's {@link ConversationRequest}. */
public final class ResponsesConversation {

    private ResponsesConversation() {
    }

    /**
     * @param history the items a {@code previous_response_id} continues from (empty for none); the
     *                previous response's instructions are not among them, as OpenAI documents
     */
    public static ConversationRequest of(ResponsesRequest request, List<? extends JsonNode> history) {
        List<JsonNode> items = new ArrayList<>(history);
        items.addAll(request.input());
        List<Message> messages = new ArrayList<>();
        if (request.instructions() != null && !request.instructions().isEmpty()) {
            messages.add(Message.system(request.instructions()));
        }
        messages.addAll(ResponseItems.toMessages(items, request.tools()));
        // "none" turns a hybrid model's thinking off; other efforts keep the template's default.
        Boolean enableThinking = "none".equals(request.reasoningEffort()) ? Boolean.FALSE : null;
        var sampling = new SamplingFields(request.temperature(), request.topP(), null, 0, 0, Map.of());
        return new ConversationRequest(request.model(), messages, request.tools().chat(), request.format(),
                enableThinking, true, Map.of(), sampling, 1, List.of(), request.maxOutputTokens(), CapPolicy.CLAMP, -1,
                "input");
    }
}
