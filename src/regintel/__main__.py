from regintel.cli import main

main()
