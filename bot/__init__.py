"""The Slack app, settings, rendering, the answer store and the command line."""
