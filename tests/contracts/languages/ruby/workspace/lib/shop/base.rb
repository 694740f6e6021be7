module Shop
  class Base
    def save; @saved = true; end
  end
end
