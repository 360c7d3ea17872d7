"""`wiki`: a Notion-like wiki of pages (markdown blocks) and typed databases, in `wiki_*` tables."""
