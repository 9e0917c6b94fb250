package dev.inferd.server.anthropic;

import dev.inferd.engine.chat.Message;

import java.util.ArrayList;
import java.util.List;

/**
 * Where the system turns of a Messages request go. Claude Code sends system turns inside {@code messages}, after
 * a user turn; many chat templates refuse a system message anywhere but first (Gemma's and Mistral's raise an
 * error). So system text before the first other turn joins the leading system message, and a later system turn
 * is added to the user turn before it (or, when the turn before is no user turn, to the next one); only where
 * there is no user turn to join does it stay a system message.
 */
final class SystemTurns {

    private SystemTurns() {
    }

    static List<Message> fold(List<Message> turns) {
        List<Message> out = new ArrayList<>(turns.size());
        String pendingForNextUser = null;
        for (Message m : turns) {
            boolean system = m.role() == Message.Role.SYSTEM;
            boolean leading = out.stream().allMatch(t -> t.role() == Message.Role.SYSTEM);
            if (system && leading) {
                if (out.isEmpty()) out.add(m);
                else out.set(0, Message.system(out.getFirst().content() + "\n" + m.content()));
            } else if (system && !out.isEmpty() && out.getLast().role() == Message.Role.USER) {
                out.set(out.size() - 1, Message.user(out.getLast().content() + "\n" + m.content()));
            } else if (system) {
                pendingForNextUser = pendingForNextUser == null ? m.content() : pendingForNextUser + "\n" + m.content();
            } else if (m.role() == Message.Role.USER && pendingForNextUser != null) {
                out.add(Message.user(pendingForNextUser + "\n" + m.content()));
                pendingForNextUser = null;
            } else {
                out.add(m);
            }
        }
        if (pendingForNextUser != null) out.add(Message.system(pendingForNextUser));
        return out;
    }
}
