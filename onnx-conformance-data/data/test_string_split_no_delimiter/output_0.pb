2hello2world2!2hello2world2!2hello2world2!B
substrings