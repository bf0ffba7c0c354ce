/// The query both stores run for ``TriageStore/openConversations(app:reader:)``: standard SQL,
/// with `?` placeholders (reader, app) that PostgreSQL's store numbers.
public enum OpenConversationSQL {
    public static let select = """
        SELECT c.*, t.tags AS triage_tags, t.priority AS triage_priority, t.snoozed_until AS triage_snoozed_until,
               t.updated_by AS triage_updated_by, t.updated_at AS triage_updated_at,
               (SELECT max(e.seq) FROM events e
                WHERE e.conversation_id = c.id AND e.type = 'message' AND e.author_role = 'visitor') AS last_visitor_seq,
               (SELECT max(e.created_at) FROM events e
                WHERE e.conversation_id = c.id AND e.type = 'message' AND e.author_role = 'visitor') AS last_visitor_at,
               (SELECT r.read_seq FROM read_markers r
                WHERE r.conversation_id = c.id AND r.participant_role = 'agent' AND r.participant_id = ?) AS reader_read_seq,
               (SELECT min(e.created_at) FROM events e
                WHERE e.conversation_id = c.id AND e.type = 'message' AND e.author_role = 'visitor'
                  AND e.seq > coalesce((SELECT max(a.seq) FROM events a
                                        WHERE a.conversation_id = c.id AND a.type = 'message' AND a.author_role = 'agent'), 0)) AS waiting_since
        FROM conversations c LEFT JOIN conversation_triage t ON t.conversation_id = c.id
        WHERE c.app_id = ? AND c.state IN ('queued', 'assigned')
        """
}
