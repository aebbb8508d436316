
optional_input