package dev.inferd.engine.chat.output;

/**
 * Separates tool calls from content in text fed piece by piece, for one call syntax; one subclass
 * per {@link ToolCallFormat}. A call's name is reported as soon as its string is complete, then its
 * arguments as they are generated: the fragments are the arguments' JSON text exactly as written
 * (decoded, when a model writes the arguments as a JSON string). Opening and closing markers, and
 * whitespace between calls, never reach the content. Text that looked like a call but is not one
 * (malformed before the function's name is known) goes to the content, without its marker.
 *
 * <p>This class holds what every syntax shares: the batched output ({@link CallOutput}) and the
 * reading of call objects ({@link JsonCallObject}); a subclass says where calls open and close.
 */
abstract sealed class CallSyntaxParser permits HermesCallParser, MistralCallParser, JsonReplyParser {

    final CallOutput out;
    private JsonCallObject call;

    CallSyntaxParser(OutputListener listener) {
        this.out = new CallOutput(listener);
    }

    static CallSyntaxParser of(ToolCallFormat format, OutputListener listener) {
        return switch (format) {
            case HERMES -> new HermesCallParser(listener);
            case MISTRAL -> new MistralCallParser(listener);
            case LLAMA3 -> new Llama3CallParser(listener);
            case GENERIC -> new GenericCallParser(listener);
        };
    }

    final void accept(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            out.record(c);
            step(c);
        }
        out.flush();
    }

    /** Ends the output: text held back goes to its channel, a call cut off is marked incomplete. */
    final void finish() {
        end();
        out.flush();
    }

    final OpenCall openCall() {
        return out.openCall();
    }

    /** The call the output ended inside, or -1. */
    final int incompleteCall() {
        return out.incomplete();
    }

    /** Reads one character in the syntax's current state. */
    abstract void step(char c);

    /** The output ended in the current state. */
    abstract void end();

    /** A call object was read whole. */
    abstract void callEnded();

    /** The call region is over: what follows is content again. */
    abstract void regionEnded();

    /** A call object begins here. */
    final JsonCallObject beginCallObject() {
        call = new JsonCallObject(out);
        return call;
    }

    /** A call object begins with {@code alreadyRead}, read while probing whether the reply is a call. */
    final JsonCallObject beginCallObject(CharSequence alreadyRead) {
        beginCallObject().raw.append(alreadyRead);
        return call;
    }

    /** Feeds the open call object. */
    final void callChar(char c) {
        switch (call.feed(c)) {
            case MORE -> {
            }
            case DONE -> {
                if (call.name == null) {
                    failCall(null);
                    return;
                }
                call = null;
                out.callDone();
                callEnded();
            }
            case INVALID -> failCall(c);
        }
    }

    /** The output ended inside a call object: one without a name was content, one with a name is cut off. */
    final void endInsideCall() {
        if (call.name == null) {
            out.content(call.raw);
        } else {
            out.markIncomplete(call.index);
        }
    }

    /** Reads held-back text again from the current state. */
    final void replay(CharSequence text) {
        for (int i = 0; i < text.length(); i++) {
            step(text.charAt(i));
        }
    }

    final void endRegion() {
        out.closeRegion();
        regionEnded();
    }

    private void failCall(Character c) {
        JsonCallObject failed = call;
        call = null;
        endRegion();
        if (failed.name == null) {
            out.content(failed.raw);
        }
        if (c != null) {
            step(c);
        }
    }
}
