"""Never reads its stdin (and never answers): writes to it fill the pipe."""

import time

if __name__ == "__main__":
    while True:
        time.sleep(1000)
