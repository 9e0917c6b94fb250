package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.inferd.engine.generate.TextGenerator;
import dev.inferd.server.conversation.ConversationEvent;
import dev.inferd.server.conversation.ConversationPlan;
import dev.inferd.server.conversation.ConversationPlanner;
import dev.inferd.server.conversation.ConversationRequest;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.WireJson;
import dev.inferd.server.responses.ResponseAssembler;
import dev.inferd.server.responses.ResponseIds;
import dev.inferd.server.responses.ResponseObjects;
import dev.inferd.server.responses.ResponseStore;
import dev.inferd.server.responses.ResponsesConversation;
import dev.inferd.server.responses.ResponsesRequest;
import dev.inferd.server.responses.ResponsesRequestParser;
import dev.inferd.server.responses.StoredResponse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * The Responses API: {@code POST /v1/responses} (streamed or not) over the conversation pipeline, and
 * the kept responses' {@code GET}, {@code DELETE} and {@code input_items}.
 */
final class ResponsesEndpoint {

    static final String PATH = "/v1/responses";

    private final ModelGate models;
    private final long maxBodyBytes;
    private final boolean separateReasoning;
    private final ResponseStore store;

    ResponsesEndpoint(ModelGate models, long maxBodyBytes, boolean separateReasoning, ResponseStore store) {
        this.models = models;
        this.maxBodyBytes = maxBodyBytes;
        this.separateReasoning = separateReasoning;
        this.store = store;
    }

    void create(ServerRequest httpRequest, ServerResponse response, ClientWatch client) throws InterruptedException {
        ResponsesRequest request = ResponsesRequestParser.parse(JsonExchange.readBody(httpRequest, maxBodyBytes));
        RequestHook hook = RequestHook.of(httpRequest);
        String owner = hook.owner();
        List<JsonNode> history = history(owner, request.previousResponseId());
        // Where a Responses request becomes the engine's request:
        ConversationRequest conversation = ResponsesConversation.of(request, history);
        try (ModelLease lease = models.admit(request.model(), hook)) {
            ConversationPlan plan = ConversationPlanner.plan(conversation, lease.generator(), separateReasoning,
                    "text.format", "max_output_tokens");
            long created = System.currentTimeMillis() / 1000;
            ObjectNode object = ResponseObjects.inProgress(request, ResponseIds.next("resp"), created);
            ToIntFunction<String> tokens = tokenCounter(lease.generator());
            boolean summaries = request.reasoningSummary() != null;
            MeteredGeneration run = lease.submit(plan.engineRequest());
            ResponseAssembler assembler;
            // kept before the answer's last event leaves: a follow-up sent the moment it arrives (to any worker
            // of a gateway) finds it
            if (request.stream()) {
                var writer = new StreamWriter();
                assembler = new ResponseAssembler(object, request.tools(), summaries, writer::send, tokens);
                writer.assembler = assembler;
                ResponseAssembler streamed = assembler;
                writer.beforeEnd = () -> keep(owner, request, history, streamed.response());
                ConversationRun.stream(run, plan, response, client, writer);
            } else {
                var answer = ProbedJsonResponse.probedBy(client, response);
                assembler = new ResponseAssembler(object, request.tools(), summaries, ResponseAssembler.Emitter.NONE,
                        tokens);
                ConversationRun.collect(run, plan, client, assembler::accept);
                keep(owner, request, history, assembler.response());
                answer.send(object);
            }
        }
    }

    /**
     * What keeps a conversation's turns on one of a gateway's workers (its prefix cache): the conversation's first
     * input item without its id, read from the kept response a follow-up continues (the 400 {@link #create} gives
     * when there is none, before any worker is asked). Null when the body does not parse: the worker says why.
     */
    String conversationKey(ServerRequest httpRequest, JsonNode body) {
        ResponsesRequest request;
        try {
            request = ResponsesRequestParser.parse(body.deepCopy());
        } catch (ApiError e) {
            return null;
        }
        List<? extends JsonNode> items = request.previousResponseId() != null
                ? history(RequestHook.of(httpRequest).owner(), request.previousResponseId())
                : request.input();
        if (items.isEmpty() || !(items.getFirst() instanceof ObjectNode first)) return null;
        ObjectNode start = first.deepCopy();
        start.remove("id");
        return start.toString();
    }

    void get(String id, ServerRequest request, ServerResponse response) {
        StoredResponse kept = kept(RequestHook.of(request).owner(), id);
        send(response, kept.response().getBytes(StandardCharsets.UTF_8));
    }

    void delete(String id, ServerRequest request, ServerResponse response) {
        if (!store.delete(RequestHook.of(request).owner(), id)) throw notFound(id);
        send(response, WireJson.bytes(ResponseObjects.deleted(id)));
    }

    /** {@code GET /v1/responses/{id}/input_items?limit=&order=&after=}: OpenAI's list with its paging fields. */
    void inputItems(String id, ServerRequest request, ServerResponse response) {
        StoredResponse kept = kept(RequestHook.of(request).owner(), id);
        int limit = queryInt(request, "limit", 20, 1, 100);
        String order = request.query("order") == null ? "desc" : request.query("order");
        if (!order.equals("asc") && !order.equals("desc")) {
            throw ApiError.invalid("order", "Invalid value for 'order': '" + order
                    + "'. Supported values are: 'asc' and 'desc'.");
        }
        List<JsonNode> items = new ArrayList<>();
        parseArray(kept.inputItems()).forEach(items::add);
        if (order.equals("desc")) items = items.reversed();
        String after = request.query("after");
        int from = 0;
        if (after != null) {
            for (int i = 0; i < items.size(); i++) {
                if (after.equals(items.get(i).path("id").asText())) from = i + 1;
            }
        }
        int to = Math.min(items.size(), from + limit);
        send(response, WireJson.bytes(ResponseObjects.itemList(items.subList(from, to), to < items.size())));
    }

    /** The items a follow-up continues from, or a 400 naming {@code previous_response_id}. */
    private List<JsonNode> history(String owner, String previousId) {
        if (previousId == null) return List.of();
        StoredResponse previous = store.get(owner, previousId).orElseThrow(() -> new ApiError(400,
                ApiError.INVALID_REQUEST, "Previous response with id '" + previousId + "' not found.",
                "previous_response_id", "previous_response_not_found"));
        List<JsonNode> items = new ArrayList<>();
        parseArray(previous.context()).forEach(items::add);
        return items;
    }

    /** Keeps a finished response (as {@code store} asks, OpenAI's default being to keep it). */
    private void keep(String owner, ResponsesRequest request, List<JsonNode> history, ObjectNode object) {
        String status = object.path("status").asText();
        if (!request.store() || !(status.equals("completed") || status.equals("incomplete"))) return;
        ArrayNode input = WireJson.mapper().createArrayNode();
        request.input().forEach(input::add);
        ArrayNode context = WireJson.mapper().createArrayNode();
        history.forEach(context::add);
        request.input().forEach(context::add);
        object.path("output").forEach(context::add);
        store.put(owner, new StoredResponse(object.path("id").asText(), object.path("created_at").asLong(),
                object.toString(), input.toString(), context.toString()));
    }

    private StoredResponse kept(String owner, String id) {
        return store.get(owner, id).orElseThrow(() -> notFound(id));
    }

    private static ApiError notFound(String id) {
        return new ApiError(404, ApiError.INVALID_REQUEST, "No response found with id '" + id + "'.", null,
                "not_found");
    }

    private static ArrayNode parseArray(String json) {
        try {
            return (ArrayNode) WireJson.mapper().readTree(json);
        } catch (IOException e) {
            throw new IllegalStateException("a kept response's items are not JSON", e);
        }
    }

    private static int queryInt(ServerRequest request, String name, int fallback, int min, int max) {
        String value = request.query(name);
        if (value == null) return fallback;
        try {
            int n = Integer.parseInt(value);
            if (n >= min && n <= max) return n;
        } catch (NumberFormatException e) {
            // answered below
        }
        throw ApiError.invalid(name, "Invalid value for '" + name + "': expected an integer from " + min + " to "
                + max + ", but got '" + value + "'.");
    }

    private static void send(ServerResponse response, byte[] body) {
        response.status(200);
        response.header("Content-Type", JsonExchange.JSON);
        response.send(body);
    }

    /** Counts a text's tokens as the model's tokenizer does (for {@code reasoning_tokens}). */
    private static ToIntFunction<String> tokenCounter(TextGenerator generator) {
        return text -> {
            try {
                return Math.max(0, generator.textPrompt(text).length - generator.textPrompt("").length);
            } catch (RuntimeException e) {
                return 0;
            }
        };
    }

    /** The Responses stream: named events with sequence numbers, no {@code [DONE]}. */
    private static final class StreamWriter implements ConversationRun.Writer {
        ResponseAssembler assembler;
        /** Runs once before the event that ends the response. */
        Runnable beforeEnd;
        private SseStream sse;

        void send(ObjectNode event) {
            String type = event.path("type").asText();
            if (beforeEnd != null && (type.equals("response.completed") || type.equals("response.incomplete"))) {
                Runnable keep = beforeEnd;
                beforeEnd = null;
                keep.run();
            }
            sse.send(type, event);
        }

        @Override
        public void start(SseStream sse) {
            this.sse = sse;
            assembler.start();
        }

        @Override
        public void event(SseStream sse, ConversationEvent event) {
            assembler.accept(event);
        }

        @Override
        public void failed(SseStream sse, ApiError error) {
            assembler.fail(error);
        }

        @Override
        public boolean endsWithDone() {
            return false;
        }
    }
}
