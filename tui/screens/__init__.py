"""The dashboard's screens: the dashboard itself, help, errors and prompts."""
