package dev.inferd.server.responses;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.inferd.server.conversation.ChoiceOutput;
import dev.inferd.server.conversation.ConversationEvent;
import dev.inferd.server.conversation.StopReason;
import dev.inferd.server.conversation.ToolCallOutput;
import dev.inferd.server.openai.ApiError;
import dev.inferd.server.openai.Usage;
import dev.inferd.server.openai.WireJson;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.function.ToIntFunction;

/**
 * Builds a response's {@code output} items from the pipeline's events, and tells an {@link Emitter} the
 * stream events of each step (for a whole response the emitter is {@link Emitter#NONE}). One item is
 * open at a time: thinking is a {@code reasoning} item, text a {@code message} with one
 * {@code output_text} part, each call a {@code function_call} (or {@code custom_tool_call}) item; an
 * item closes when output of another kind begins, or at the end.
 */
public final class ResponseAssembler {

    /** Receives each stream event; the event's {@code type} is its name. */
    @FunctionalInterface
    public interface Emitter {
        Emitter NONE = event -> {
        };

        void emit(ObjectNode event);
    }

    private enum Kind { MESSAGE, REASONING, FUNCTION_CALL, CUSTOM_CALL }

    /** The open item. */
    private static final class Item {
        final Kind kind;
        final ObjectNode node;
        final int outputIndex;
        final StringBuilder text = new StringBuilder();

        Item(Kind kind, ObjectNode node, int outputIndex) {
            this.kind = kind;
            this.node = node;
            this.outputIndex = outputIndex;
        }

        String id() {
            return node.path("id").asText();
        }
    }

    private final ObjectNode response;
    private final ArrayNode output;
    private final ResponseTools tools;
    private final boolean summaries;
    private final Emitter emitter;
    private final ToIntFunction<String> tokenCount;
    private final Map<Integer, Item> calls = new HashMap<>();
    private final StringBuilder reasoning = new StringBuilder();
    private Item open;
    private StopReason stop = StopReason.STOP;
    private int sequence;

    /**
     * @param response   the response in progress ({@link ResponseObjects#inProgress}); its output fills here
     * @param summaries  reasoning items also carry their text as a summary ({@code reasoning.summary} was asked for)
     * @param tokenCount counts the tokens of a text (for {@code reasoning_tokens})
     */
    public ResponseAssembler(ObjectNode response, ResponseTools tools, boolean summaries, Emitter emitter,
                             ToIntFunction<String> tokenCount) {
        this.response = response;
        this.output = (ArrayNode) response.get("output");
        this.tools = tools;
        this.summaries = summaries;
        this.emitter = emitter;
        this.tokenCount = tokenCount;
    }

    public ObjectNode response() {
        return response;
    }

    /** The stream's opening events. */
    public void start() {
        emit(event("response.created").set("response", response.deepCopy()));
        emit(event("response.in_progress").set("response", response.deepCopy()));
    }

    public void accept(ConversationEvent event) {
        switch (event) {
            case ConversationEvent.ContentDelta d -> text(d.text());
            case ConversationEvent.ReasoningDelta r -> reasoning(r.text());
            case ConversationEvent.ToolCallStarted s -> callStarted(s.index(), s.id(), s.name());
            case ConversationEvent.ToolCallArguments a -> callArguments(a.index(), a.fragment());
            case ConversationEvent.ToolCallDone done -> callDone(done.call());
            case ConversationEvent.Logprobs l -> {
            }
            case ConversationEvent.ChoiceFinished f -> finished(f.output());
            case ConversationEvent.Completed c -> completed(c.usage());
        }
    }

    /** The generation failed after the stream began: an {@code error} event, then {@code response.failed}. */
    public void fail(ApiError error) {
        ObjectNode e = event("error");
        e.put("code", error.reason() == null ? "server_error" : error.reason());
        e.put("message", error.getMessage());
        e.put("param", error.param());
        emit(e);
        response.put("status", "failed");
        ObjectNode detail = response.putObject("error");
        detail.put("code", error.status() >= 500 ? "server_error" : "invalid_request");
        detail.put("message", error.getMessage());
        emit(event("response.failed").set("response", response.deepCopy()));
    }

    private void text(String delta) {
        if (open == null || open.kind != Kind.MESSAGE) {
            ObjectNode item = item("msg", "message");
            item.put("role", "assistant");
            item.putArray("content");
            Item message = begin(Kind.MESSAGE, item);
            ObjectNode added = partEvent("response.content_part.added", message);
            added.set("part", outputText(""));
            emit(added);
        }
        open.text.append(delta);
        ObjectNode e = partEvent("response.output_text.delta", open);
        e.put("delta", delta);
        e.putArray("logprobs");
        emit(e);
    }

    private void reasoning(String delta) {
        if (open == null || open.kind != Kind.REASONING) {
            ObjectNode item = item("rs", "reasoning");
            item.putArray("summary");
            item.putArray("content");
            Item r = begin(Kind.REASONING, item);
            if (summaries) {
                ObjectNode part = summaryEvent("response.reasoning_summary_part.added", r);
                part.set("part", summaryText(""));
                emit(part);
            }
        }
        open.text.append(delta);
        reasoning.append(delta);
        ObjectNode e = partEvent("response.reasoning_text.delta", open);
        e.put("delta", delta);
        emit(e);
        if (summaries) {
            emit(summaryEvent("response.reasoning_summary_text.delta", open).put("delta", delta));
        }
    }

    private void callStarted(int index, String callId, String modelName) {
        ResponseTools.Callable callable = tools.callable(modelName);
        boolean custom = callable.custom();
        ObjectNode item = custom ? item("ctc", "custom_tool_call") : item("fc", "function_call");
        item.put("call_id", callId);
        if (callable.namespace() != null) item.put("namespace", callable.namespace());
        item.put("name", callable.name());
        item.put(custom ? "input" : "arguments", "");
        calls.put(index, begin(custom ? Kind.CUSTOM_CALL : Kind.FUNCTION_CALL, item));
    }

    private void callArguments(int index, String fragment) {
        Item call = calls.get(index);
        if (call == null) return;
        call.text.append(fragment);
        if (call.kind == Kind.FUNCTION_CALL && call == open) {
            ObjectNode e = event("response.function_call_arguments.delta");
            e.put("item_id", call.id());
            e.put("output_index", call.outputIndex);
            e.put("delta", fragment);
            emit(e);
        }
    }

    private void callDone(ToolCallOutput call) {
        Item item = calls.get(call.index());
        if (item != null && item == open) close(call.complete() ? "completed" : "incomplete");
    }

    private void finished(ChoiceOutput choice) {
        stop = choice.engineStop();
        if (open != null) close(stop == StopReason.LENGTH ? "incomplete" : "completed");
        if (output.isEmpty()) {
            // Every response has something to read: an empty reply is an empty message.
            text("");
            close(stop == StopReason.LENGTH ? "incomplete" : "completed");
        }
    }

    private void completed(Usage usage) {
        int reasoningTokens = reasoning.isEmpty() ? 0 : tokenCount.applyAsInt(reasoning.toString());
        response.set("usage", ResponseObjects.usage(usage, reasoningTokens));
        if (stop == StopReason.LENGTH) {
            response.put("status", "incomplete");
            response.putObject("incomplete_details").put("reason", "max_output_tokens");
            emit(event("response.incomplete").set("response", response.deepCopy()));
        } else {
            response.put("status", "completed");
            response.put("completed_at", System.currentTimeMillis() / 1000);
            emit(event("response.completed").set("response", response.deepCopy()));
        }
    }

    // ---- items ----

    private Item begin(Kind kind, ObjectNode node) {
        if (open != null) close("completed");
        Item item = new Item(kind, node, output.size());
        node.put("status", "in_progress");
        output.add(node);
        open = item;
        ObjectNode added = event("response.output_item.added");
        added.put("output_index", item.outputIndex);
        added.set("item", node.deepCopy());
        emit(added);
        return item;
    }

    private void close(String status) {
        Item item = open;
        open = null;
        String text = item.text.toString();
        switch (item.kind) {
            case MESSAGE -> {
                ObjectNode done = partEvent("response.output_text.done", item);
                done.put("text", text);
                done.putArray("logprobs");
                emit(done);
                ObjectNode part = outputText(text);
                emit(partEvent("response.content_part.done", item).set("part", part.deepCopy()));
                ((ArrayNode) item.node.get("content")).add(part);
            }
            case REASONING -> {
                emit(partEvent("response.reasoning_text.done", item).put("text", text));
                ((ArrayNode) item.node.get("content")).addObject().put("type", "reasoning_text").put("text", text);
                if (summaries) {
                    emit(summaryEvent("response.reasoning_summary_text.done", item).put("text", text));
                    ObjectNode summary = summaryText(text);
                    emit(summaryEvent("response.reasoning_summary_part.done", item).set("part", summary.deepCopy()));
                    ((ArrayNode) item.node.get("summary")).add(summary);
                }
            }
            case FUNCTION_CALL -> {
                item.node.put("arguments", text);
                ObjectNode done = event("response.function_call_arguments.done");
                done.put("item_id", item.id());
                done.put("name", item.node.path("name").asText());
                done.put("output_index", item.outputIndex);
                done.put("arguments", text);
                emit(done);
            }
            case CUSTOM_CALL -> item.node.put("input", customInput(text));
        }
        item.node.put("status", status);
        ObjectNode done = event("response.output_item.done");
        done.put("output_index", item.outputIndex);
        done.set("item", item.node.deepCopy());
        emit(done);
    }

    /** A custom tool's free-form input, which the model wrote as the arguments {@code {"input": "..."}}. */
    private static String customInput(String arguments) {
        try {
            JsonNode node = WireJson.mapper().readTree(arguments);
            if (node != null && node.path("input").isTextual()) return node.path("input").textValue();
        } catch (IOException e) {
            // cut off at the token limit: the raw text is all there is
        }
        return arguments;
    }

    private static ObjectNode item(String idPrefix, String type) {
        ObjectNode node = WireJson.mapper().createObjectNode();
        node.put("id", ResponseIds.next(idPrefix));
        node.put("type", type);
        return node;
    }

    private static ObjectNode outputText(String text) {
        ObjectNode part = WireJson.mapper().createObjectNode();
        part.put("type", "output_text");
        part.put("text", text);
        part.putArray("annotations");
        part.putArray("logprobs");
        return part;
    }

    private static ObjectNode summaryText(String text) {
        return WireJson.mapper().createObjectNode().put("type", "summary_text").put("text", text);
    }

    private ObjectNode event(String type) {
        ObjectNode e = WireJson.mapper().createObjectNode();
        e.put("type", type);
        return e;
    }

    private ObjectNode partEvent(String type, Item item) {
        return itemPartEvent(type, item, "content_index");
    }

    private ObjectNode summaryEvent(String type, Item item) {
        return itemPartEvent(type, item, "summary_index");
    }

    /** An event about the first (and only) part of {@code item}, indexed by {@code indexField}. */
    private ObjectNode itemPartEvent(String type, Item item, String indexField) {
        ObjectNode e = event(type);
        e.put("item_id", item.id());
        e.put("output_index", item.outputIndex);
        e.put(indexField, 0);
        return e;
    }

    private void emit(ObjectNode event) {
        event.put("sequence_number", sequence++);
        emitter.emit(event);
    }
}
