
2green2blue2red2teal2blue2teal2red2teal2green2teal2teal2red2green2red2blue2green2green2teal2blue2redBX