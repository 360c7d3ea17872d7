"""`mail`: the user's mailbox (folders, messages, the company directory) in `mail_*` tables."""
